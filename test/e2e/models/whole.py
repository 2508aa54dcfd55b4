"""Whole torchvision models with seeded random weights."""

import torch
import torchvision


def resnet18():
    torch.manual_seed(32)
    return torchvision.models.resnet18(weights=None), (torch.randn(1, 3, 64, 64),)


def mobilenet_v3_small():
    torch.manual_seed(33)
    return torchvision.models.mobilenet_v3_small(weights=None), (torch.randn(1, 3, 64, 64),)


def vit_tiny():
    torch.manual_seed(34)
    m = torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, num_classes=10
    )
    return m, (torch.randn(2, 3, 32, 32),)
