"""Model factories for `test_gate.py` (coreai-gate): each returns
(module, inputs) like the importer's factories."""

import torch
import torch.nn.functional as F


class Normed(torch.nn.Module):
    """RMSNorm (externalized as the rms_norm composite in the tests), a
    linear layer and softplus: fine in fp16 once converted."""

    def __init__(self, d=16):
        super().__init__()
        torch.manual_seed(0)
        self.norm = torch.nn.RMSNorm(d, eps=1e-5)
        self.fc = torch.nn.Linear(d, 8)

    def forward(self, x):
        h = self.fc(self.norm(x))
        return F.softplus(h), torch.tanh(x).sum(-1)


def normed():
    return Normed(), (torch.randn(2, 5, 16),)


class TinyLM(torch.nn.Module):
    """Embedding, a residual MLP block and a head that scores token j by
    the embedding of NEXT[j]: greedy decoding walks a permutation cycle, so
    every step's token depends on the numbers."""

    def __init__(self, vocab=16, d=16):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        q, _ = torch.linalg.qr(torch.randn(d, d, generator=g))
        self.emb = torch.nn.Embedding(vocab, d)
        self.fc = torch.nn.Linear(d, d)
        self.head = torch.nn.Linear(d, vocab, bias=False)
        nxt = torch.randperm(vocab, generator=g)
        with torch.no_grad():
            self.emb.weight.copy_(q[:vocab] * 4.0)
            self.fc.weight.mul_(0.1)
            self.head.weight.copy_(q[nxt])

    def forward(self, ids):
        h = self.emb(ids)
        h = h + F.gelu(self.fc(h))
        return self.head(h)


def tiny_lm():
    return TinyLM(), (torch.tensor([[1, 7, 3, 9, 4, 2]]),)


def raises():
    raise RuntimeError("no weights here")


def not_a_tuple():
    return Normed()


def transformers_llama():
    """A transformers Llama (the zoo's random-weight configuration, hidden
    64, 2 layers, GQA) behind the zoo's logits wrapper, with two prompts."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("zoo_models", Path(__file__).resolve().parents[1] / "zoo" / "models.py")
    zoo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(zoo)
    wrapped, _, _ = zoo.build("llama")
    return wrapped, (torch.cat([zoo.ids(6, seed=1), zoo.ids(6, seed=2)]),)
