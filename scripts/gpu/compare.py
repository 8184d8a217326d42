"""Comparisons shared by the GPU harness and the probe."""
import torch


def bits_differing(got, want):
    """Elements of two same-dtype tensors whose bits differ (a NaN equals any NaN)."""
    as_int = torch.int64 if got.element_size() == 8 else torch.int32
    return int((~((got.view(as_int) == want.view(as_int)) | (torch.isnan(got) & torch.isnan(want)))).sum())
