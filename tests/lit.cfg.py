import os
import lit.formats

config.name = "intentc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".kir", ".test", ".mlir"]
config.excludes = ["Inputs", "integration", "fuzz", "python", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.intent_obj_root, "tests")

config.environment["PATH"] = os.pathsep.join(
    [config.intent_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# Keep the user's cache and server out of tests: every test gets a private cache and no server.
config.environment["INTENT_CACHE_DIR"] = os.path.join(config.test_exec_root, "lit-cache")
config.environment["INTENTC_SOCKET"] = os.path.join(config.test_exec_root, "no-server.sock")
config.substitutions.append(("%intentc", os.path.join(config.intent_tools_dir, "intentc")))
config.substitutions.append(("%configs", os.path.join(config.intent_src_root, "configs")))
config.substitutions.append(("%examples", os.path.join(config.intent_src_root, "examples")))
