"""intent_runtime: runtime support for intentc-generated kernels.

Autotunes once per runtime key (shape/dtype/stride/alignment/aliasing +
device), remembers winners (compile server, cache index, or a pending JSON
file) and keeps tuning trials unobservable (exact trial-state restore).
"""
from .keys import (TuningKey, canonical_json, device_key, runtime_key,
                   runtime_key_parts, tuning_key)
from .store import (SCHEMA_SQL, FallbackStore, JsonFileStore, MemoryStore,
                    ServerStore, SqliteStore, Store, StoreError, cache_dir,
                    default_socket_path, resolve_store)
from .trial_state import TrialState
from .tuner import TunedKernel, cpu_timer, cuda_timer

__version__ = "0.1.0"

__all__ = [
    "TrialState", "TunedKernel", "TuningKey", "runtime_key", "runtime_key_parts",
    "device_key", "tuning_key", "canonical_json", "SCHEMA_SQL", "Store", "StoreError",
    "MemoryStore", "SqliteStore", "ServerStore", "JsonFileStore", "FallbackStore",
    "resolve_store", "cache_dir", "default_socket_path", "cpu_timer", "cuda_timer",
    "__version__",
]
