"""Trial state: keep autotuning trials unobservable (tuning.md section 6).

Snapshots are taken per *allocation owner* (untyped storage), never per view,
so views that alias one allocation keep aliasing and stay mutually consistent.
Tensors are never replaced: restore copies bytes back in place, so shape,
dtype, strides, storage offset and aliasing of every argument are preserved.

Policy (documented in docs/runtime.md):

* A storage that some view writes ("out"/"inout") AND some view reads
  ("in"/"inout"/"scalar" tensor) is *trial state*: its bytes are restored
  before every trial launch (``restore()``), warm-up included.
* A storage that is only written ("out" only) does not influence any trial,
  so it is not restored between trials.  It is still snapshotted once and put
  back by ``restore_all()`` after tuning, so a tuning run (successful or
  failed) leaves no trial effect in the caller's state.
* Storages that are only read are never copied.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Sequence

import torch

ACCESS_MODES = ("in", "out", "inout", "scalar")
_READS = ("in", "inout", "scalar")
_WRITES = ("out", "inout")


def _byte_span(t: torch.Tensor):
    """[lo, hi) byte range of the storage spanned by view ``t`` (None if empty)."""
    if t.numel() == 0:
        return None
    es = t.element_size()
    lo = t.storage_offset()
    hi = lo
    for size, stride in zip(t.shape, t.stride()):
        if size == 0:
            return None
        if stride >= 0:
            hi += (size - 1) * stride
        else:  # not produced by torch today, but be safe
            lo += (size - 1) * stride
    return lo * es, (hi + 1) * es


def storage_id(t: torch.Tensor):
    """Identity of the allocation owner of ``t``."""
    st = t.untyped_storage()
    return (t.device.type, t.device.index, st.data_ptr(), st.nbytes())


def _byte_view(t: torch.Tensor) -> torch.Tensor:
    """A flat uint8 tensor over the whole untyped storage of ``t`` (no copy)."""
    st = t.untyped_storage()
    b = torch.empty(0, dtype=torch.uint8, device=t.device)
    b.set_(st, 0, (st.nbytes(),), (1,))
    return b


@dataclass
class _Group:
    key: tuple
    owner: torch.Tensor           # one view on the storage (keeps it alive)
    arg_indices: List[int] = field(default_factory=list)
    reads: bool = False
    writes: bool = False
    lo: int = 0
    hi: int = 0
    snapshot: Any = None

    @property
    def trial_state(self) -> bool:
        return self.reads and self.writes


class TrialState:
    """Snapshot of the caller's launch arguments for autotuning.

    ``args``: launch arguments in order (tensors or Python scalars).
    ``access``: one of "in", "out", "inout", "scalar" per argument.
    ``snapshot_outputs``: also snapshot pure-"out" storages so
    ``restore_all()`` can put them back (default True).
    """

    def __init__(self, args: Sequence[Any], access: Sequence[str], snapshot_outputs: bool = True):
        if len(args) != len(access):
            raise ValueError(f"TrialState: {len(args)} args but {len(access)} access modes")
        groups = {}
        for i, (a, mode) in enumerate(zip(args, access)):
            if mode not in ACCESS_MODES:
                raise ValueError(f"TrialState: argument {i}: unknown access mode {mode!r}")
            if not isinstance(a, torch.Tensor):
                if mode in _WRITES:
                    raise ValueError(f"TrialState: argument {i} is {mode!r} but not a tensor")
                continue
            span = _byte_span(a)
            key = storage_id(a)
            g = groups.get(key)
            if g is None:
                g = groups[key] = _Group(key=key, owner=a)
                g.lo, g.hi = (span if span else (0, 0))
            elif span:
                if g.hi == g.lo:
                    g.lo, g.hi = span
                else:
                    g.lo, g.hi = min(g.lo, span[0]), max(g.hi, span[1])
            g.arg_indices.append(i)
            g.reads |= mode in _READS
            g.writes |= mode in _WRITES
        self.groups = list(groups.values())
        with torch.no_grad():
            for g in self.groups:
                if not g.writes or g.hi <= g.lo:
                    continue
                if g.trial_state or snapshot_outputs:
                    g.snapshot = _byte_view(g.owner)[g.lo:g.hi].clone()

    # -- introspection ----------------------------------------------------
    @property
    def restored_storages(self) -> int:
        """Number of storages restored before every trial."""
        return sum(1 for g in self.groups if g.trial_state and g.snapshot is not None)

    @property
    def snapshot_bytes(self) -> int:
        return sum(g.hi - g.lo for g in self.groups if g.snapshot is not None)

    # -- restore ------------------------------------------------------------
    def _copy_back(self, only_trial_state: bool) -> None:
        with torch.no_grad():
            for g in self.groups:
                if g.snapshot is None:
                    continue
                if only_trial_state and not g.trial_state:
                    continue
                _byte_view(g.owner)[g.lo:g.hi].copy_(g.snapshot)

    def restore(self) -> None:
        """Restore every read-and-written storage (before each trial)."""
        self._copy_back(only_trial_state=True)

    def restore_all(self) -> None:
        """Restore every snapshotted storage, pure outputs included (after tuning)."""
        self._copy_back(only_trial_state=False)

    def release(self) -> None:
        for g in self.groups:
            g.snapshot = None
