# IntentKernels.cmake - compile KIR kernels as part of a CMake build.
#
#   include(IntentKernels)            # or include(<intentc>/cmake/IntentKernels.cmake)
#   intent_add_kernels(<target>
#     SOURCES a.kir [b.kir ...]
#     [PROVIDER triton]               # --target (default triton)
#     [ARCH sm_90]                    # --arch (default: the provider's)
#     [KERNEL name]                   # --kernel
#     [DEFINES M=128 N=64 ...]        # --define each
#     [TUNING_CONFIG file.json]       # --tuning-config (a dependency)
#     [OUTPUT_DIR dir]                # default ${CMAKE_CURRENT_BINARY_DIR}/intent_kernels/<target>
#     [SERVER spawn|auto|never])      # --server (default spawn: one shared compile server per user)
#
# One custom command per source writes OUTPUT_DIR/<source-name>/ (kernel.py / kernel.mlu, artifact.json,
# ...) and a stamp; it depends on the KIR file, the tuning config and the intentc binary, so a second build
# compiles nothing. With SERVER spawn, `make -j64` starts exactly one `intentc serve` (double-checked spawn
# protocol, docs/protocol.md) and every compile goes through its shared cache.
# The target property INTENT_KERNEL_DIRS lists the output directories.
#
# INTENTC_EXECUTABLE: the intentc binary (found on PATH when not set).

if(NOT INTENTC_EXECUTABLE)
  find_program(INTENTC_EXECUTABLE intentc REQUIRED)
endif()

function(intent_add_kernels target)
  cmake_parse_arguments(ARG "" "PROVIDER;ARCH;KERNEL;TUNING_CONFIG;OUTPUT_DIR;SERVER"
                        "SOURCES;DEFINES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "intent_add_kernels(${target}): SOURCES is required")
  endif()
  if(NOT ARG_PROVIDER)
    set(ARG_PROVIDER triton)
  endif()
  if(NOT ARG_SERVER)
    set(ARG_SERVER spawn)
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/intent_kernels/${target})
  endif()
  set(common --target ${ARG_PROVIDER} --server ${ARG_SERVER})
  if(ARG_ARCH)
    list(APPEND common --arch ${ARG_ARCH})
  endif()
  if(ARG_KERNEL)
    list(APPEND common --kernel ${ARG_KERNEL})
  endif()
  foreach(d ${ARG_DEFINES})
    list(APPEND common --define ${d})
  endforeach()
  set(deps ${INTENTC_EXECUTABLE})
  if(ARG_TUNING_CONFIG)
    get_filename_component(cfg ${ARG_TUNING_CONFIG} ABSOLUTE)
    list(APPEND common --tuning-config ${cfg})
    list(APPEND deps ${cfg})
  endif()
  set(stamps)
  set(dirs)
  foreach(src ${ARG_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(name ${src} NAME_WE)
    set(out ${ARG_OUTPUT_DIR}/${name})
    set(stamp ${ARG_OUTPUT_DIR}/${name}.stamp)
    add_custom_command(
      OUTPUT ${stamp}
      COMMAND ${INTENTC_EXECUTABLE} compile ${abs} ${common} -o ${out}
      COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
      DEPENDS ${abs} ${deps}
      COMMENT "intentc: ${name} (${ARG_PROVIDER})"
      VERBATIM)
    list(APPEND stamps ${stamp})
    list(APPEND dirs ${out})
  endforeach()
  add_custom_target(${target} ALL DEPENDS ${stamps})
  set_target_properties(${target} PROPERTIES INTENT_KERNEL_DIRS "${dirs}")
endfunction()
