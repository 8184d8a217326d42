import torch

from intent_runtime import TrialState


def test_inout_restore_per_storage_and_pure_out():
    base = torch.arange(16, dtype=torch.float32)
    a = base[:8]          # inout view
    b = base[4:12]        # in view, overlaps a
    out = torch.zeros(4)  # pure out
    st = TrialState([a, b, out, 3], ["inout", "in", "out", "scalar"])
    assert st.restored_storages == 1
    orig = base.clone()
    base.add_(100)
    out.fill_(7)
    st.restore()
    assert torch.equal(base[:12], orig[:12])          # span of all views on the storage
    assert torch.equal(base[12:], orig[12:] + 100)    # bytes no view touches are not copied
    assert torch.equal(out, torch.full((4,), 7.0))  # pure out not restored between trials
    st.restore_all()
    assert torch.equal(out, torch.zeros(4))


def test_region_only_and_views_preserved():
    base = torch.arange(20, dtype=torch.float64)
    v = base[5:15:2]
    st = TrialState([v], ["inout"])
    ptr, stride, off = v.data_ptr(), v.stride(), v.storage_offset()
    assert st.snapshot_bytes == (13 - 5 + 1) * 8
    base.zero_()
    st.restore()
    assert torch.equal(base[5:14], torch.arange(5, 14, dtype=torch.float64))
    assert base[0] == 0 and base[19] == 0  # outside the spanned region: untouched
    assert (v.data_ptr(), v.stride(), v.storage_offset()) == (ptr, stride, off)


def test_read_only_storage_not_copied():
    x = torch.ones(4)
    st = TrialState([x, x], ["in", "in"])
    assert st.snapshot_bytes == 0


def test_transposed_and_dtype_views_share_storage():
    m = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    t = m.t()
    st = TrialState([m, t], ["in", "out"])
    assert st.restored_storages == 1
    m.fill_(-1)
    st.restore()
    assert torch.equal(m, torch.arange(12, dtype=torch.int32).reshape(3, 4))
