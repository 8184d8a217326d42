"""Per-runtime-shape autotuning for generated kernels (tuning.md section 6)."""
from __future__ import annotations

import os
import statistics
import threading
import time
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

import torch

from .keys import (args_device, canonical_json, device_key, interpreter_mode,
                   runtime_key, tuning_key)
from .store import Store, StoreError, resolve_store
from .trial_state import TrialState

# A timer measures one candidate: timer(launch, restore, config) -> [ms, ...]
# Contract: it must call restore() before EVERY launch() (warm-up included)
# and must not time restore().
Timer = Callable[[Callable[[], None], Callable[[], None], dict], List[float]]


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


def cpu_timer(launch, restore, config, reps: Optional[int] = None, warmup: int = 1) -> List[float]:
    """time.perf_counter timing for CPU / TRITON_INTERPRET (few reps)."""
    reps = reps or _env_int("INTENT_TUNE_REPS", 3)
    for _ in range(warmup):
        restore()
        launch()
    out = []
    for _ in range(reps):
        restore()
        t0 = time.perf_counter()
        launch()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


_L2_FLUSH = {}


def _l2_flush(device) -> None:
    """Evicts the L2 cache like triton.testing.do_bench (writes a 256 MiB buffer),
    so every trial starts cold, as do_bench measures. Keeping the device busy while
    the host enqueues the trial is `_hold_device`'s job: the flush alone was too
    short for descriptor launches."""
    buf = _L2_FLUSH.get(device)
    if buf is None:
        buf = _L2_FLUSH[device] = torch.empty(64 * 1024 * 1024, dtype=torch.int32, device=device)
    buf.zero_()


_HOLD_CYCLES = 400_000  # ~200 us at the H200's clock; longer than any launch's host work


def _hold_device() -> None:
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:
        sleep(_HOLD_CYCLES)


def cuda_timer(launch, restore, config, reps: Optional[int] = None, warmup_ms: float = 25.0,
               rep_ms: float = 100.0) -> List[float]:
    """CUDA-event timing in the style of triton.testing.do_bench: per-launch
    event pairs, the L2 flushed and the trial state restored before every launch
    (outside the timed pair)."""
    device = torch.cuda.current_device()

    def before():
        restore()
        _l2_flush(device)
        # Keep the device busy until the launch is enqueued: the start event must
        # not run while the host is still preparing the launch (host-side tensor
        # descriptors are encoded at every launch, ~20 us more than pointer
        # candidates, which made short descriptor kernels lose their trials).
        _hold_device()

    # warm-up (compiles), then estimate the launch time
    before()
    launch()
    torch.cuda.synchronize()
    n_est = 3
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n_est)]
    for s, e in ev:
        before()
        s.record()
        launch()
        e.record()
    torch.cuda.synchronize()
    est = max(sum(s.elapsed_time(e) for s, e in ev) / n_est, 1e-4)
    if reps is None:
        env = os.environ.get("INTENT_TUNE_REPS")
        reps = int(env) if env else int(min(max(rep_ms / est, 5), 200))
    n_warm = int(min(max(warmup_ms / est, 1), 50))
    for _ in range(n_warm):
        before()
        launch()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        before()
        starts[i].record()
        launch()
        ends[i].record()
    torch.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in zip(starts, ends)]


# Finalists: candidates whose first-pass median is within REFINE_WITHIN of the best are timed
# again, interleaved, so that clock and thermal drift over a long tuning pass does not decide
# between near-equal candidates (the first pass times each candidate once, in table order).
REFINE_WITHIN = 1.05
REFINE_MAX = 4
REFINE_ROUNDS = 4  # forward, reversed, forward, reversed: linear drift cancels


def refine_rounds(n: int) -> List[List[int]]:
    """Timing order of n finalists over REFINE_ROUNDS rounds (mirrored every other round)."""
    fwd = list(range(n))
    return [fwd if r % 2 == 0 else fwd[::-1] for r in range(REFINE_ROUNDS)]


def default_timer(args: Sequence[Any]) -> Timer:
    dev = args_device(args)
    if dev is not None and dev.type == "cuda" and not interpreter_mode():
        return cuda_timer
    return cpu_timer


def _quick_key(args: Sequence[Any]):
    """What TunedKernel.key_for reads from the arguments, as a tuple: equal quick keys mean
    equal tuning keys. None (never equal) for arguments it does not cover."""
    parts = []
    for a in args:
        if isinstance(a, torch.Tensor):
            parts.append((a.data_ptr(), a.untyped_storage().data_ptr(), a.dtype, a.device, a.shape, a.stride()))
        elif a is None or type(a) in (int, bool):
            parts.append((type(a), a))
        elif type(a) is float:
            parts.append((float, a.hex()))  # -0.0 and 0.0 differ in the key; NaN equals NaN
        else:
            return None
    return tuple(parts) if any(isinstance(a, torch.Tensor) for a in args) else None


def _fmt_cfg(c: dict) -> str:
    return canonical_json(c)


class TunedKernel:
    """Autotune a generated kernel once per runtime key and remember the winner.

    name         kernel name (diagnostics only)
    artifact_key compiled-candidate identity (the intentc cache key)
    candidates   list of JSON-serializable config dicts
    run          run(config, args) launches one candidate on args (a list)
    access       per-argument access mode: "in" | "out" | "inout" | "scalar"
    store        winner store; None -> resolve_store() from the environment
    timer        timer(launch, restore, config) -> [ms...]; None -> CUDA events / perf_counter
    refine       re-time the finalists interleaved (default: with CUDA-event timing only)
    retune       measure again and replace stored winners (also INTENT_RETUNE=1)
    specialize   scalar argument indices keyed by value (see keys.runtime_key_parts)
    """

    def __init__(self, name: str, artifact_key: str, candidates: Sequence[dict],
                 run: Callable[[dict, list], None], access: Sequence[str],
                 store: Optional[Store] = None, timer: Optional[Timer] = None,
                 retune: Optional[bool] = None, specialize: Optional[Iterable[int]] = None,
                 refine: Optional[bool] = None):
        if not candidates:
            raise ValueError(f"{name}: no candidates")
        self.name = name
        self.artifact_key = artifact_key
        self.candidates = [dict(c) for c in candidates]
        self._canon = [canonical_json(c) for c in self.candidates]
        if len(set(self._canon)) != len(self._canon):
            raise ValueError(f"{name}: duplicate candidate configs")
        self.run = run
        self.access = list(access)
        self._store = store
        self.timer = timer
        if retune is None:
            retune = os.environ.get("INTENT_RETUNE", "0") not in ("", "0")
        self.retune = retune
        # Interleaved re-timing of the finalists: on by default for CUDA-event timing
        # (INTENT_TUNE_REFINE=0 disables it), off for CPU timing unless asked for.
        env_refine = os.environ.get("INTENT_TUNE_REFINE")
        self.refine = refine if refine is not None else (
            None if env_refine is None else env_refine not in ("", "0"))
        self.specialize = None if specialize is None else list(specialize)
        self.stats = {"tunings": 0, "trials": 0, "hits": 0, "timed": 0, "store_errors": 0, "refined": 0}
        self.last_timings: List[dict] = []
        self._winners: Dict[str, dict] = {}
        self._retuned = set()
        self._last = None  # (quick key, winner) of the previous call
        self._lock = threading.RLock()

    # -- store ----------------------------------------------------------------
    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = resolve_store()
        return self._store

    def key_for(self, args: Sequence[Any]):
        rk = runtime_key(args, self.access, self.specialize)
        return tuning_key(self.artifact_key, rk, device_key(args_device(args)))

    # -- public API ---------------------------------------------------------------
    def __call__(self, *args):
        args = list(args)
        winner = self._resolve(args)
        self.run(winner, args)

    def prepare(self, *args) -> dict:
        """Resolve (tuning if needed, caller's state restored) without the final launch."""
        return self._resolve(list(args))

    # -- internals -----------------------------------------------------------------
    def _resolve(self, args: list) -> dict:
        if len(args) != len(self.access):
            raise TypeError(f"{self.name}: expected {len(self.access)} arguments, got {len(args)}")
        if len(self.candidates) == 1:
            return self.candidates[0]
        # The tuning key is canonical JSON and a digest (tens of microseconds): a call on the
        # arguments of the previous one reuses its winner without computing it.
        qk = _quick_key(args)
        last = self._last
        if qk is not None and last is not None and last[0] == qk:
            self.stats["hits"] += 1
            return last[1]
        w = self._resolve_keyed(args)
        self._last = (qk, w)
        return w

    def _resolve_keyed(self, args: list) -> dict:
        tk = self.key_for(args)
        with self._lock:
            w = self._winners.get(tk.digest)
            if w is not None:
                self.stats["hits"] += 1
                return w
            retune = self.retune and tk.digest not in self._retuned
            stored = None
            if not retune:
                try:
                    st = self.store
                    stored = st.lookup(tk) if hasattr(st, "lookup") else st.get(tk.digest)
                except StoreError as e:
                    self.stats["store_errors"] += 1
                    stored = None
            known: Dict[str, dict] = {}
            if stored:
                for t in stored.get("candidates") or []:
                    known[canonical_json(t["config"])] = t
            missing = [i for i, k in enumerate(self._canon) if k not in known]
            if stored and stored.get("found") and not missing:
                sw = canonical_json(stored["winner"])
                if sw in self._canon:
                    w = self.candidates[self._canon.index(sw)]
                    self._winners[tk.digest] = w
                    self.stats["hits"] += 1
                    return w
            w = self._tune(tk, args, known, missing, retune)
            self._winners[tk.digest] = w
            if retune:
                self._retuned.add(tk.digest)
            return w

    def _tune(self, tk, args, known, missing, retune) -> dict:
        self.stats["tunings"] += 1
        timer = self.timer or default_timer(args)
        measured: List[dict] = []
        if missing:
            state = TrialState(args, self.access)
            try:
                for i in missing:
                    cfg = self.candidates[i]

                    def launch(cfg=cfg):
                        self.stats["trials"] += 1
                        self.run(cfg, args)

                    self.stats["timed"] += 1
                    try:
                        samples = list(timer(launch, state.restore, cfg))
                        if not samples:
                            raise RuntimeError("timer returned no samples")
                        measured.append({"config": cfg, "median_ms": float(statistics.median(samples)),
                                         "spread_ms": float(max(samples) - min(samples)),
                                         "status": "ok", "message": None})
                    except Exception as e:  # a failing candidate is skipped, not fatal
                        msg = f"{type(e).__name__}: {e}"
                        measured.append({"config": cfg, "median_ms": None, "spread_ms": None,
                                         "status": "failed", "message": msg})
                        if torch.cuda.is_available() and not interpreter_mode():
                            try:
                                torch.cuda.synchronize()
                            except Exception:
                                pass
                if self.refine or (self.refine is None and timer is cuda_timer):
                    self._refine(timer, state, args, known, measured)
            finally:
                # the caller's state carries no trial effect, whatever happened
                state.restore_all()
                state.release()
        # results over the *current* candidate set
        by_key = dict(known)
        for t in measured:
            by_key[canonical_json(t["config"])] = t
        current = [by_key[k] for k in self._canon]
        self.last_timings = current
        ok = [t for t in current if t["status"] == "ok" and t["median_ms"] is not None]
        if not ok:
            if measured:
                self._record(tk, measured, None, retune)  # remember failures (no winner)
            lines = "\n".join(f"  {_fmt_cfg(t['config'])}: {t.get('message') or 'failed'}" for t in current)
            raise RuntimeError(f"{self.name}: every tuning candidate failed "
                               f"(tuning key {tk.digest[:16]}):\n{lines}")
        best = min(ok, key=lambda t: t["median_ms"])
        winner = best["config"]
        if measured or retune:
            stored_w = self._record(tk, measured, winner, retune)
            if stored_w is not None:
                sk = canonical_json(stored_w)
                if sk in self._canon:
                    idx = self._canon.index(sk)
                    if current[idx]["status"] == "ok":
                        winner = self.candidates[idx]
        return self.candidates[self._canon.index(canonical_json(winner))]

    def _refine(self, timer, state, args, known, measured) -> None:
        """Times the finalists again in mirrored rounds; each finalist's median becomes the
        median of its round medians (measured again: stored candidates join as new entries)."""
        entries = {canonical_json(t["config"]): t for t in list(known.values()) + measured}
        ok = sorted((t for t in entries.values() if t["status"] == "ok" and t["median_ms"] is not None),
                    key=lambda t: t["median_ms"])
        if len(ok) < 2:
            return
        finalists = [t for t in ok if t["median_ms"] <= ok[0]["median_ms"] * REFINE_WITHIN][:REFINE_MAX]
        if len(finalists) < 2:
            return
        rounds: List[List[float]] = [[] for _ in finalists]
        try:
            for order in refine_rounds(len(finalists)):
                for i in order:
                    cfg = finalists[i]["config"]

                    def launch(cfg=cfg):
                        self.stats["trials"] += 1
                        self.run(cfg, args)

                    rounds[i].append(float(statistics.median(timer(launch, state.restore, cfg))))
        except Exception:  # keep the first-pass medians
            return
        by_measured = {canonical_json(t["config"]): t for t in measured}
        for t, r in zip(finalists, rounds):
            k = canonical_json(t["config"])
            refined = dict(t, median_ms=float(statistics.median(r)), spread_ms=float(max(r) - min(r)))
            if k in by_measured:
                by_measured[k].update(refined)
            else:
                measured.append(refined)
        self.stats["refined"] += len(finalists)

    def _record(self, tk, measured, winner, retune):
        try:
            return self.store.record(tk.digest, tk.artifact_key, tk.runtime_key, tk.device,
                                     measured, winner, retune)
        except StoreError as e:
            self.stats["store_errors"] += 1
            warnings.warn(f"intent_runtime: {self.name}: could not record winner: {e}")
            return None
