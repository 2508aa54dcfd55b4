"""Dynamic batch: exported with --dynamic-dims x:0=1:64 (see EXPORT_FLAGS)."""

import torch


class DynamicBatchMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(8, 16)
        self.l2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        y = self.l2(torch.relu(self.l1(x)))
        return y.reshape(x.shape[0], 2, 2), y.mean(0)


def dynamic_batch_mlp():
    torch.manual_seed(42)
    return DynamicBatchMlp(), (torch.randn(3, 8),)
