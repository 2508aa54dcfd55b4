"""Whole torchvision models with seeded random weights."""

import torch
import torchvision


def resnet18():
    torch.manual_seed(32)
    return torchvision.models.resnet18(weights=None), (torch.randn(1, 3, 64, 64),)


def _calibrate_batch_norms(model, batch):
    """Running statistics from random data (cumulative average), as after
    training: with the defaults (mean 0, var 1) activations of a deep random
    network shrink layer after layer and the output would be ~1e-10."""
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        model(batch)
    return model.eval()


def mobilenet_v3_small():
    torch.manual_seed(33)
    model = _calibrate_batch_norms(torchvision.models.mobilenet_v3_small(weights=None), torch.randn(8, 3, 64, 64))
    return model, (torch.randn(1, 3, 64, 64),)


def vit_tiny():
    torch.manual_seed(34)
    m = torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10
    )
    # torchvision zero-initializes the classification head: the output would
    # be all zeros and compare nothing.
    torch.nn.init.normal_(m.heads.head.weight, std=0.5)
    torch.nn.init.normal_(m.heads.head.bias, std=0.5)
    return m.eval(), (torch.randn(2, 3, 32, 32),)


class VitEncoderDynamicSeq(torch.nn.Module):
    """vit_tiny's encoder and head over a token sequence of any length
    (exported with a dynamic one): the class token is prepended to the
    given patch embeddings, the encoder layers run without the fixed-length
    position embedding."""

    def __init__(self, vit):
        super().__init__()
        self.class_token = vit.class_token
        self.layers, self.ln, self.heads = vit.encoder.layers, vit.encoder.ln, vit.heads

    def forward(self, tokens):
        x = torch.cat([self.class_token.expand(tokens.shape[0], -1, -1), tokens], 1)
        x = self.ln(self.layers(x))
        return self.heads(x[:, 0]), x


def vit_tiny_dynamic_seq():
    vit, _ = vit_tiny()
    torch.manual_seed(37)
    return VitEncoderDynamicSeq(vit).eval(), (torch.randn(2, 16, 32),)
