import torch

from intent_runtime import device_key, runtime_key, runtime_key_parts, tuning_key


def test_runtime_key_shape_dtype_stride_alias():
    x = torch.zeros(8, 8)
    k1 = runtime_key([x, x[1:], 8], ["in", "out", "scalar"])
    assert k1 == runtime_key([x, x[1:], 8], ["in", "out", "scalar"])
    parts = runtime_key_parts([x, x[1:], 8], ["in", "out", "scalar"])["args"]
    assert parts[1]["alias"] == 0 and parts[1]["rel_offset"] == 32
    assert parts[0]["align"] == 16 and parts[1]["align"] == 16
    y = torch.zeros(8, 8)
    assert runtime_key([x, y[1:], 8], ["in", "out", "scalar"]) != k1          # no aliasing
    assert runtime_key([x, x[1:], 16], ["in", "out", "scalar"]) != k1         # int scalar by value
    assert runtime_key([x.t(), x[1:], 8], ["in", "out", "scalar"]) != k1      # strides
    assert runtime_key([x.double(), x[1:], 8], ["in", "out", "scalar"]) != k1
    # alignment: a 4-byte offset breaks 16-byte alignment
    z = torch.zeros(9)
    assert runtime_key_parts([z[1:]], ["in"])["args"][0]["align"] == 4
    # explicit specialize: unlisted ints keep only eq1/div16 properties
    assert runtime_key([x, 32], ["in", "scalar"], specialize=[]) == runtime_key([x, 48], ["in", "scalar"], specialize=[])
    assert runtime_key([x, 32], ["in", "scalar"], specialize=[]) != runtime_key([x, 33], ["in", "scalar"], specialize=[])


def test_device_and_tuning_key(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert device_key() == "cpu|interpreter"
    tk = tuning_key("art", "rk", "cpu|interpreter")
    assert len(tk.digest) == 64 and tk.artifact_key == "art"
    assert tuning_key("art", "rk", "dev2").digest != tk.digest
    assert tuning_key("ar", "trk", "cpu|interpreter").digest != tk.digest
