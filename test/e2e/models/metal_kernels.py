"""Models calling custom Metal kernels (coreai-torch's TorchMetalKernel, or
coreai_export.metal.MetalKernel without coreai-torch). `kernels(cls,
parameter)` builds the three kernels with either class; the CPU kernels
crates/coreai-interp/examples/metal_kernel.rs registers implement their
`torch_defn`s."""

import torch

ADD_SRC = "out[gid] = a[gid] + b[gid];"
AXPB_SRC = "y[gid] = flag ? (T)(x[gid] * s + n) : x[gid];"
AXPB_HELPER = "inline T twice(T v) { return v + v; }"
TWO_SRC = "uint i = gid.x, j = gid.y; p[j * 4 + i] = x[j * 4 + i] + 1;"


def add_defn(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b


def axpb_defn(x: torch.Tensor, s: float, n: int, flag: bool) -> torch.Tensor:
    return x * s + n if flag else x.clone()


def two_defn(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x + 1, (x * 2).sum(0)


def kernels(cls, parameter):
    gid = parameter("gid", "uint", "thread_position_in_grid")
    add = cls("mk_add", ["a", "b"], ["out"], src=ADD_SRC, torch_defn=add_defn, metal_params=[gid])
    axpb = cls("mk_axpb", ["x", "s", "n", "flag"], ["y"], src=AXPB_SRC, torch_defn=axpb_defn,
               metal_params=[gid], helper_src=AXPB_HELPER, template_dtypes={"x": "T"})
    two = cls("mk_two", ["x"], ["p", "q"], src=TWO_SRC, torch_defn=two_defn,
              metal_params=[parameter("gid", "uint2", "thread_position_in_grid")])
    return add, axpb, two


class Kernels(torch.nn.Module):
    """Each kernel once on f32, and the templated one again on f16 with
    other scalars (a second kernel source)."""

    def __init__(self, add, axpb, two):
        super().__init__()
        self.add, self.axpb, self.two = add, axpb, two

    def forward(self, a, b, h):
        y = self.add(a, b, threads_per_grid=(12, 1, 1), threads_per_thread_group=(12, 1, 1),
                     result_shapes=[[3, 4]])
        z = self.axpb(y, 2.5, 3, True, threads_per_grid=(12, 1, 1), threads_per_thread_group=(4, 1, 1),
                      result_shapes=[[3, 4]])
        p, q = self.two(z, threads_per_grid=(4, 3, 1), threads_per_thread_group=(4, 3, 1),
                        result_shapes=[[3, 4], [4]])
        w = self.axpb(h, 1e-05, -2, True, threads_per_grid=(6, 1, 1), threads_per_thread_group=(6, 1, 1),
                      result_shapes=[[6]])
        return p.relu(), q, w


def inputs():
    torch.manual_seed(7)
    return (torch.randn(3, 4), torch.randn(3, 4), torch.randn(6, dtype=torch.float16))


def model():
    """The kernels written with coreai_export.metal (no coreai-torch)."""
    from coreai_export.metal import MetalKernel, MetalParameter

    return Kernels(*kernels(MetalKernel, MetalParameter)), inputs()


def coreai_torch_model():
    """The kernels written with coreai-torch's TorchMetalKernel, registered
    with the importer as with coreai-torch's converter."""
    from coreai.authoring import MetalParameter
    from coreai_torch import TorchMetalKernel

    from coreai_export.metal import register_metal_kernels

    ks = kernels(TorchMetalKernel, MetalParameter)
    register_metal_kernels(ks)
    return Kernels(*ks), inputs()
