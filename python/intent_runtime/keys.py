"""Runtime tuning keys (cache-and-server.md sections 2 and 6).

tuning key = artifact key (compiled-candidate identity)
           + runtime key (shape / dtype / stride / alignment / aliasing)
           + device key.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

import torch

KEY_VERSION = "intent-tuning-v1"


def canonical_json(obj: Any) -> str:
    """Canonical JSON used for every key and every stored config."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _alignment(ptr: int, cap: int = 16) -> int:
    """Largest power of two <= cap dividing ptr (16 => TMA/descriptor aligned)."""
    a = 1
    while a < cap and ptr % (a * 2) == 0:
        a *= 2
    return a


def _scalar_part(v: Any, by_value: bool) -> dict:
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        if by_value:
            return {"kind": "int", "value": v}
        return {"kind": "int", "eq1": v == 1, "div16": v % 16 == 0}
    if isinstance(v, float):
        return {"kind": "float", "value": v} if by_value else {"kind": "float"}
    if v is None:
        return {"kind": "none"}
    if isinstance(v, torch.dtype):
        return {"kind": "dtype", "value": str(v)}
    return {"kind": type(v).__name__, "value": repr(v)} if by_value else {"kind": type(v).__name__}


def runtime_key_parts(args: Sequence[Any], access: Sequence[str],
                      specialize: Optional[Iterable[int]] = None) -> dict:
    """Structured runtime key.

    ``specialize``: indices of scalar arguments whose *value* is part of the
    key.  ``None`` (default) keys every int/bool scalar by value (they are
    usually sizes, which decide the winner) and floats by type only.  With an
    explicit collection, other ints contribute only Triton-style properties
    (== 1, divisible by 16).
    """
    spec = None if specialize is None else set(specialize)
    storages = {}
    parts = []
    for i, a in enumerate(args):
        mode = access[i] if i < len(access) else "?"
        if isinstance(a, torch.Tensor):
            st = a.untyped_storage()
            sid = (a.device.type, a.device.index, st.data_ptr())
            first = storages.setdefault(sid, i)
            parts.append({
                "kind": "tensor",
                "access": mode,
                "dtype": str(a.dtype).replace("torch.", ""),
                "device": a.device.type,
                "shape": list(a.shape),
                "stride": list(a.stride()),
                # byte alignment of the view's first element (storage base + offset)
                "align": _alignment(a.data_ptr()),
                # index of the first argument sharing this allocation (== own index if none)
                "alias": first,
                # byte offset relative to the first aliasing argument (aliasing layout)
                "rel_offset": (a.data_ptr() - args[first].data_ptr()) if first != i else 0,
            })
        else:
            if spec is None:
                by_value = isinstance(a, (int, bool)) or a is None
            else:
                by_value = i in spec
            p = _scalar_part(a, by_value)
            p["access"] = mode
            parts.append(p)
    return {"version": KEY_VERSION, "args": parts}


def runtime_key(args: Sequence[Any], access: Sequence[str],
                specialize: Optional[Iterable[int]] = None) -> str:
    """Stable canonical-JSON string of :func:`runtime_key_parts`."""
    return canonical_json(runtime_key_parts(args, access, specialize))


def interpreter_mode() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


_DEVICE_CACHE = {}


def device_key(device: Optional[torch.device] = None) -> str:
    """"<device name>|sm_<cc>" for CUDA, "cpu|interpreter" otherwise."""
    if device is not None and not isinstance(device, torch.device):
        device = torch.device(device)
    if interpreter_mode() or not torch.cuda.is_available() or (device is not None and device.type != "cuda"):
        return "cpu|interpreter"
    idx = device.index if device is not None and device.index is not None else torch.cuda.current_device()
    k = _DEVICE_CACHE.get(idx)
    if k is None:
        props = torch.cuda.get_device_properties(idx)
        arch = getattr(props, "gcnArchName", None) if torch.version.hip else None
        if arch:
            k = f"{props.name}|{arch.split(':')[0]}"
        else:
            k = f"{props.name}|sm_{props.major}{props.minor}"
        _DEVICE_CACHE[idx] = k
    return k


def args_device(args: Sequence[Any]) -> Optional[torch.device]:
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.device
    return None


@dataclass(frozen=True)
class TuningKey:
    digest: str
    artifact_key: str
    runtime_key: str
    device: str

    def __str__(self) -> str:
        return self.digest


def tuning_key(artifact_key: str, runtime_key: str, device_key: str) -> TuningKey:
    h = hashlib.blake2b(digest_size=32)
    for part in (KEY_VERSION, artifact_key, runtime_key, device_key):
        b = part.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return TuningKey(h.hexdigest(), artifact_key, runtime_key, device_key)
