#!/usr/bin/env python3
"""Regenerates the golden corpus test/golden/*.mlir: small PyTorch modules
converted to Core AI IR by coreai-torch 0.4.3 and printed by coreai-core
1.0.0b3. The lit suite round-trips every file through coreai-opt and the
interop tests check that coreai-core accepts what coreai-opt prints.

    .venv/bin/python utils/coreai-golden/generate.py

Modules coreai-torch cannot convert are listed in FAILURES with the reason
instead of being dropped.
"""
import math
import os
import random
import sys
import warnings

import torch
import torch.nn.functional as F

import coreai_torch
from coreai.authoring import func as coreai_func
from coreai.authoring import graph_builder as coreai_graph_builder

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "golden")


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


class State(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("s", torch.zeros(3))

    def forward(self, x):
        self.s.add_(x)
        return self.s * 2


class Dyn(torch.nn.Module):
    def forward(self, x):
        return (x * 2).sum(0)


def _while(i, x):
    from torch._higher_order_ops.while_loop import while_loop

    return while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (i, x))


x34 = lambda: torch.randn(3, 4)
img = lambda: torch.randn(1, 4, 6, 6)
CASES = {
    "elementwise_unary": (Fn(lambda x: (x.abs(), x.exp(), x.log(), x.sin(), x.cos(), x.tanh(), x.sqrt(), x.rsqrt(), x.erf(), x.round(), x.atan())), (x34(),)),
    "elementwise_binary": (Fn(lambda x, y: (x + y, x - y, x * y, x / y, torch.maximum(x, y), torch.minimum(x, y), x ** y, torch.floor_divide(x, y), torch.remainder(x, y))), (x34(), torch.randn(4))),
    "compare_where": (Fn(lambda x, y: (x > y, x == y, x != y, torch.where(x > 0, x, y), (x > 0) | (y > 0), (x > 0) & (y > 0))), (x34(), torch.randn(4))),
    "activations": (Fn(lambda x: (F.relu(x), torch.sigmoid(x), F.silu(x), F.gelu(x), F.gelu(x, approximate="tanh"), F.softmax(x, 1), F.hardsigmoid(x))), (x34(),)),
    "reductions": (Fn(lambda x: (x.sum(1), x.mean(0), x.amax(1), x.amin(1), x.prod(1), x.argmax(1), x.max(dim=1), (x > 0).any(1), (x > 0).all())), (x34(),)),
    "matmul": (Fn(lambda a, b: (a @ b, torch.bmm(a[None], b[None]))), (x34(), torch.randn(4, 5))),
    "conv_pool": (Fn(lambda x, w, wt: (F.conv2d(x, w, padding=1), F.conv_transpose2d(x, wt), F.max_pool2d(x, 2), F.avg_pool2d(x, 2))), (img(), torch.randn(2, 4, 3, 3), torch.randn(4, 2, 2, 2))),
    "conv3d": (Fn(lambda x, w: F.conv3d(x, w)), (torch.randn(1, 2, 4, 4, 4), torch.randn(3, 2, 2, 2, 2))),
    "shape_layout": (Fn(lambda x: (x.reshape(4, 3), x.t(), x.unsqueeze(0), x[None].squeeze(0), x.expand(2, 3, 4), x.flip(0), x.repeat(2, 1))), (x34(),)),
    "slice_concat_split": (Fn(lambda x: (x[1:, ::2], torch.cat([x, x], 0), *torch.split(x, [1, 3], 1))), (x34(),)),
    "gather_scatter": (Fn(lambda x, i: (torch.gather(x, 1, i), x.scatter(1, i, x), x[i[:, 0]])), (x34(), torch.randint(0, 3, (3, 4)))),
    "slice_update": (Fn(lambda x, y: x.index_put((torch.tensor([0, 2]),), y)), (x34(), torch.randn(2, 4))),
    "pad_interpolate": (Fn(lambda x: (F.pad(x, (1, 2), mode="reflect"), F.pad(x, (1, 1)), F.interpolate(x[None, None], scale_factor=2.0, mode="bilinear"), F.interpolate(x[None, None], scale_factor=2.0, mode="nearest"))), (x34(),)),
    "scan": (Fn(lambda x: torch.cumsum(x, 1)), (x34(),)),
    "sort": (Fn(lambda x: torch.argsort(x, 1)), (x34(),)),
    "cast_range": (Fn(lambda x: (x.to(torch.int32), x.to(torch.float16), torch.arange(x.shape[0]))), (x34(),)),
    "control_if": (Fn(lambda p, x: torch.cond(p.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))), (torch.randn(3), torch.randn(3))),
    "control_while": (Fn(_while), (torch.tensor(0), torch.randn(3))),
    "state_handle": (State(), (torch.randn(3),)),
    "complex": (Fn(lambda x: torch.view_as_real(torch.view_as_complex(x) * torch.view_as_complex(x))), (torch.randn(3, 2),)),
    "nonzero": (Fn(lambda x: torch.nonzero(x > 0)), (x34(),)),
}
DYNAMIC = {"dynamic_shapes": (Dyn(), (torch.randn(5, 4),), {"x": {0: torch.export.Dim("n", min=2, max=64)}})}

class Norms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(4)
        self.gn = torch.nn.GroupNorm(2, 4)
        self.bn = torch.nn.BatchNorm2d(4).eval()
        self.inorm = torch.nn.InstanceNorm2d(4)

    def forward(self, x):
        return self.ln(x), self.gn(x), self.bn(x), self.inorm(x)


CASES.update({
    "composites_norms": (Norms().eval(), (torch.randn(1, 4, 3, 4),)),
    "composites_attention": (Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), (torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4))),
    "misc_activations": (Fn(lambda x: (F.hardswish(x), F.leaky_relu(x), F.hardtanh(x), x.clamp(-1, 1), torch.sign(x), x.neg(), x.reciprocal(), torch.log1p(x.abs()), torch.expm1(x), torch.exp2(x), x.floor(), x.ceil(), x.trunc(), torch.isinf(x))), (x34(),)),
    "indexing": (Fn(lambda x, i: (F.embedding(i, x), torch.index_select(x, 0, i[:, 0]), x[1], torch.topk(x, 2, 1), F.pixel_shuffle(x.reshape(1, 4, 1, 3), 2))), (x34(), torch.randint(0, 3, (3, 2)))),
    "adaptive_pool_softmax": (Fn(lambda x: (F.adaptive_avg_pool2d(x, 1), F.log_softmax(x, 1), torch.linalg.vector_norm(x, dim=1))), (img(),)),
})

A = torch.ops.aten
pos = lambda: torch.rand(3, 4) + 0.5
ints = lambda: torch.randint(-5, 5, (3, 4), dtype=torch.int32)


class SymOps(torch.nn.Module):
    """Python operators torch.export records on a dynamic size."""

    def forward(self, x):
        n = x.shape[0]
        size = n * 2 + -n + n % 3 + n ** 2
        m = torch.sym_min(n, x.shape[1] * 4)
        c = math.ceil(n / 3) + round(n * 0.5)
        return (torch.full((n // 2,), 1.0), x[: n - 1], x * torch.sym_float(n), x * (n / 2),
                torch.full((size,), 1.0), torch.full((m,), 2.0), torch.full((c,), 3.0),
                torch.full((-(1 - n),), 4.0), torch.full((math.trunc(n * 0.5),), 5.0))


# Cases aimed at resolver keys the modules above leave out; direct
# torch.ops.aten calls pin the exact overload.
CASES.update({
    "unary_more": (Fn(lambda x, p: (x.acos(), (p + 1).acosh(), x.asin(), x.asinh(), x.atanh(), x.cosh(), x.sinh(), x.tan(), p.log10(), p.log2(), torch.round(x, decimals=2))), (torch.rand(3, 4) * 1.8 - 0.9, pos())),
    "binary_scalar_forms": (Fn(lambda x, y: (A.add.Scalar(x, 1.5), A.sub.Scalar(x, 2), A.mul.Scalar(x, 3), A.div.Scalar(x, 4), A.pow.Scalar(2.0, x), torch.atan2(x, y), torch.fmod(x, y), torch.fmod(x, 1.5), A.floor_divide.default(x, y), torch.true_divide(x, y))), (pos(), pos())),
    "compare_scalar_forms": (Fn(lambda x, y: (x == 0.5, x != 0.5, x >= y, x >= 0.5, x <= y, x <= 0.5, x < y, x < 0.5)), (x34(), x34())),
    "logical_bitwise": (Fn(lambda a, b, x: (torch.logical_and(x > 0, x < 1), torch.logical_or(x > 0, x < -1), torch.logical_xor(x > 0, x < 1), torch.bitwise_not(a), torch.bitwise_xor(a, b))), (ints(), ints(), x34())),
    "reductions_full": (Fn(lambda x: (x.max(), x.min(), x.min(dim=1), x.mean(), x.prod(), (x > 0).any(), A.linalg_vector_norm.default(x, 2, [1]))), (x34(),)),
    "clamp_tensor": (Fn(lambda x, lo, hi: x.clamp(lo, hi)), (x34(), torch.full((4,), -0.5), torch.full((4,), 0.5))),
    "scatter_forms": (Fn(lambda x, i, s, m: (x.scatter(1, i, 2.0), x.scatter(1, i, s, reduce="add"), x.scatter(1, i, 2.0, reduce="multiply"), torch.slice_scatter(x, s[:, :2], dim=1, start=0, end=2), x.masked_scatter(m, s))), (x34(), torch.randint(0, 4, (3, 4)), x34(), torch.rand(3, 4) > 0.5)),
    "creation": (Fn(lambda x: (torch.full((2, 3), 1.5), torch.full_like(x, 2.0), torch.scalar_tensor(3.0), x + torch.tensor([1.0, 2.0, 3.0, 4.0]), A.empty.memory_format([2, 3]).fill_(1.0))), (x34(),)),
    "views_copies": (Fn(lambda x, y: (A.alias.default(x), A.copy.default(x, y), A._unsafe_view.default(x, [12]), A.tile.default(x, [2, 1]), A.to.dtype(x, torch.float16))), (x34(), x34())),
    "pool_pad_more": (Fn(lambda x, v: (A._adaptive_avg_pool2d.default(x, [2, 2]), F.avg_pool3d(v, 2), A.reflection_pad2d.default(x, [1, 1, 1, 1]), A.reflection_pad3d.default(v, [1, 1, 1, 1, 1, 1]), A.replication_pad1d.default(x[0], [1, 2]), A.replication_pad2d.default(x, [1, 1, 2, 2]), A.replication_pad3d.default(v, [1, 1, 1, 1, 1, 1]))), (img(), torch.randn(1, 2, 4, 4, 4))),
    "addmm": (Fn(lambda b, x, w: torch.addmm(b, x, w)), (torch.randn(5), x34(), torch.randn(4, 5))),
    "complex_more": (Fn(lambda a, b: (torch.view_as_real(torch.complex(a, b) * torch.polar(a.abs(), b)), A.view_as_real_copy.default(A.view_as_complex_copy.default(torch.stack([a, b], -1))))), (torch.randn(3), torch.randn(3))),
    "nonzero_numpy": (Fn(lambda x: A.nonzero_numpy.default(x > 0)), (x34(),)),
    "local_scalar": (Fn(lambda x: x * x.sum().item()), (x34(),)),
})
# Resolver keys coreai-torch's own decomposition table removes before its
# resolver sees them; these modules are converted without decompositions.
UNDECOMPOSED = {
    "undecomposed_keys": (Fn(lambda x: (A.tile.default(x, [2, 1]), A.to.dtype(x, torch.float16), A._unsafe_view.default(x, [12]), torch.true_divide(x, x), A.floor_divide.default(x, x), A.linalg_vector_norm.default(x, 2, [1]), x + torch.tensor([1.0, 2.0, 3.0, 4.0]))), (pos(),)),
    "undecomposed_nonzero_numpy": (Fn(lambda x: A.nonzero_numpy.default(x > 1)), (pos(),)),
}
DYNAMIC.update({"symbolic_sizes": (SymOps(), (torch.randn(6, 4),), {"x": {0: torch.export.Dim("n", min=4, max=64)}})})

# Ops coreai-torch never emits, built by hand and printed by coreai-core.
HANDBUILT = {
    "handbuilt_target_delegate": """
coreai.target_spec{spec = <triple = "arm64-apple-ios", soc = "a17", delegateOptions = {}>, compilation = <partial>}
coreai.graph @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = coreai.delegate<"ane">(%x) {resource = array<i8: 1, 2>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = coreai.isolated_group<"gpu">(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = coreai.exp %a : tensor<4xf32> -> tensor<4xf32>
    coreai.yield %e : tensor<4xf32>
  }
  coreai.output %0, %1 : tensor<4xf32>, tensor<4xf32>
}
""",
    "handbuilt_reduce_scatter": """
coreai.graph @main(%x: tensor<2x3xf32>, %idx: tensor<2x1xsi32>, %u: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %axes = coreai.constant dense<1> : tensor<1xsi32>
  %zero = coreai.constant dense<0.000000e+00> : tensor<f32>
  %0 = coreai.reduce %x, %axes, init %zero {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = coreai.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    coreai.yield %s : tensor<f32>
  } : (tensor<2x3xf32>, tensor<1xsi32>, tensor<f32>) -> tensor<2x1xf32>
  %base = coreai.constant dense<0.000000e+00> : tensor<4x3xf32>
  %1 = coreai.scatter_nd %base with %u at %idx {
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    coreai.yield %new : tensor<f32>
  } : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x1xsi32>) to tensor<4x3xf32>
  %ax = coreai.constant dense<1> : tensor<si32>
  %i2 = coreai.constant dense<0> : tensor<2x3xsi32>
  %2 = coreai.scatter_along_axis %x, %i2, %u, %ax scatter_mode = <add> : (tensor<2x3xf32>, tensor<2x3xsi32>, tensor<2x3xf32>, tensor<si32>) -> tensor<2x3xf32>
  coreai.output %0, %1, %2 : tensor<2x1xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}
""",
    "handbuilt_scan_tokens": """
coreai.graph @main(%x: tensor<3x4xf32>, %h: !coreai.handle<tensor<3x4xf32>>) -> (tensor<3x4xf32>, tensor<3x4xf32>, !coreai.token) {
  %axis = coreai.constant dense<1> : tensor<ui32>
  %rev = coreai.constant dense<true> : tensor<i1>
  %0 = coreai.scan %x, %axis, %rev combiner = <max> : (tensor<3x4xf32>, tensor<ui32>, tensor<i1>) -> tensor<3x4xf32>
  %1 = coreai.scan %x, %axis, %rev combiner = <product> : (tensor<3x4xf32>, tensor<ui32>, tensor<i1>) -> tensor<3x4xf32>
  %t0 = coreai.create_token : !coreai.token
  %t1 = coreai.write_handle %h, %0, %t0 : (<tensor<3x4xf32>>, tensor<3x4xf32>, !coreai.token) -> !coreai.token
  %t2 = coreai.join_token %t0, %t1 : (!coreai.token, !coreai.token) -> !coreai.token
  coreai.output %0, %1, %t2 : tensor<3x4xf32>, tensor<3x4xf32>, !coreai.token
}
""",
    "handbuilt_lut_matmul_index": """
coreai.graph @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %x: tensor<4x4xf32>, %c: tensor<3x2xf32>, %i: tensor<4x8xui2>, %l: tensor<1x1x4x1xf32>, %si: tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, %sl: tensor<1x1x4x1xf16>, %y: tensor<2x3xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<4x8xf32>, tensor<4x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, tensor<2x1xui32>) {
  %0 = coreai.batch_matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = coreai.interpolate_coordinates %x, %c {interpolation_mode = #coreai.interpolation_mode<linear>} : (tensor<4x4xf32>, tensor<3x2xf32>) -> tensor<3xf32>
  %ax = coreai.constant dense<0> : tensor<si16>
  %2 = coreai.lut_to_dense %i, %l, %ax : (tensor<4x8xui2>, tensor<1x1x4x1xf32>, tensor<si16>) -> tensor<4x8xf32>
  %3 = coreai.lut_to_sparse_with_bitmask %si, %sl, %ax : (tensor<4x8xui2, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, tensor<1x1x4x1xf16>, tensor<si16>) -> tensor<4x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>
  %axis = coreai.constant dense<1> : tensor<si32>
  %v0 = coreai.constant dense<0xFF800000> : tensor<f32>
  %i0 = coreai.constant dense<0> : tensor<ui32>
  %4 = coreai.reduce_index %y, %axis, init %v0 init_index %i0 {
  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %ip: tensor<ui32>, %iq: tensor<ui32>):
    %g = coreai.greater %q, %p : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = coreai.where %g, %q, %p : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %j = coreai.where %g, %iq, %ip : (tensor<i1>, tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    coreai.yield %v, %j : tensor<f32>, tensor<ui32>
  } : (tensor<2x3xf32>, tensor<si32>, tensor<f32>, tensor<ui32>) -> tensor<2x1xui32>
  coreai.output %0, %1, %2, %3, %4 : tensor<2x3x5xf32>, tensor<3xf32>, tensor<4x8xf32>, tensor<4x8xf16, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 10, posWidth = 1, crdWidth = 1>>, tensor<2x1xui32>
}
""",
    "handbuilt_images_encodings": """
coreai.graph @main(%rgb: !coreai.image<<k24RGB> x 4 x 6>, %o: !coreai.image<<"RGBA"> x 2 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>>, %x: tensor<4x8xf16>, %v: tensor<4xf32>, %m: tensor<2x3xui1>) -> (!coreai.image<<k32BGRA> x 4 x 6>, tensor<6xui8>, tensor<4x8xf32>, tensor<2x3xf32>) {
  %t = coreai.image_to_tensor %rgb : <<k24RGB> x 4 x 6> -> tensor<4x6x3xui8>
  %i = coreai.tensor_to_image %t : tensor<4x6x3xui8> -> <<"BGRA"> x 4 x 6>
  %g = coreai.image_to_tensor %o : <<"RGBA"> x 2 x 3 : i32, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>> -> tensor<6xui8>
  %0 = coreaix.copy_with_constraints(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>
  %1 = coreaix.view(%0) : (tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>) -> tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x4]>>
  %2 = coreaix.cast(%1) : (tensor<4x8xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1], interleave: [1x4]>>) -> tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>
  %3 = coreaix.copy_discarding_constraints(%2) : (tensor<4x8xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1], interleave: [1x1]>>) -> tensor<4x8xf32>
  %s = coreai.build_sparse_with_bitmask %v, %m : (tensor<4xf32>, tensor<2x3xui1>) -> tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>>
  %d = coreai.sparse_with_bitmask_to_dense %s : tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>> -> tensor<2x3xf32>
  coreai.output %i, %g, %3, %d : !coreai.image<<k32BGRA> x 4 x 6>, tensor<6xui8>, tensor<4x8xf32>, tensor<2x3xf32>
}
""",
}


# Modules coreai-torch 0.4.3 does not convert, with its reason; filled in by
# running this script (see the printed summary).
FAILURES = {}


COVERED_KEYS = set()
# Each golden round-trips through coreai-opt; the diff compares our printing
# of the golden with our printing of that printing, and the golden itself
# (coreai-core's printing) with ours after dropping comments and blank lines.
HEADER = (
    "// RUN: coreai-opt %s > %t.a && coreai-opt %t.a > %t.b && diff %t.a %t.b\n"
    "// RUN: grep -v '^//' %s | sed '/^$/d' > %t.golden && sed '/^$/d' %t.a | diff %t.golden -\n"
    "// {what} for `{name}`, printed by coreai-core 1.0.0b3.\n"
    "// Regenerate with utils/coreai-golden/generate.py.\n\n"
)


def convert(m, args, dyn=None, decompose=True, seed=0):
    ep = torch.export.export(m, args, dynamic_shapes=dyn)
    ep = ep.run_decompositions(coreai_torch.get_decomp_table() if decompose else {})
    for node in ep.graph.nodes:
        if node.op == "call_function":
            # OpOverloads key by `name.overload`, Python operators (operator.add,
            # math.ceil, torch.sym_float, getitem) by their bare name.
            if isinstance(node.target, torch._ops.OpOverload):
                COVERED_KEYS.add(str(node.target).removeprefix("aten."))
            else:
                COVERED_KEYS.add(node.target.__name__)
    conv = coreai_torch.TorchConverter()
    conv.add_exported_program(ep)
    # coreai-core names composite graphs with secrets.choice suffixes; a
    # seeded choice keeps regenerated goldens stable.
    rng = random.Random(seed)
    for module in (coreai_graph_builder, coreai_func):
        module.choice = rng.choice
    return str(conv.to_coreai()).strip() + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    ok = 0
    cases = {k: (m, a, None, True) for k, (m, a) in CASES.items()}
    cases.update({k: v + (True,) for k, v in DYNAMIC.items()})
    cases.update({k: (m, a, None, False) for k, (m, a) in UNDECOMPOSED.items()})
    for name, (m, args, dyn, decompose) in cases.items():
        try:
            text = convert(m, args, dyn, decompose, seed=name)
        except Exception as e:  # recorded, not dropped
            FAILURES[name] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            continue
        with open(os.path.join(OUT, f"{name}.mlir"), "w") as f:
            what = "coreai-torch 0.4.3 output" + ("" if decompose else " (no decompositions)")
            f.write(HEADER.format(name=name, what=what) + text)
        ok += 1
    from coreai.authoring.context import Context
    from coreai._compiler import ir

    with Context() as c:
        for name, text in HANDBUILT.items():
            try:
                printed = str(ir.Module.parse(text, c._mlir_context)).strip() + "\n"
            except Exception as e:  # recorded, not dropped
                FAILURES[name] = f"coreai-core rejects the hand-built module: {str(e).splitlines()[0][:200]}"
                continue
            with open(os.path.join(OUT, f"{name}.mlir"), "w") as f:
                f.write(HEADER.format(name=name, what="hand-built module") + printed)
            ok += 1
    from coreai_torch._aten_to_core import _aten_to_core_resolver

    keys = sorted(str(k) for k in _aten_to_core_resolver)
    missing = [k for k in keys if k not in COVERED_KEYS]
    with open(os.path.join(OUT, "RESOLVER_COVERAGE.txt"), "w") as f:
        f.write(f"# Resolver keys of coreai-torch 0.4.3 exercised by the golden corpus: "
                f"{len(keys) - len(missing)} of {len(keys)}.\n# Not yet exercised:\n")
        f.writelines(k + "\n" for k in missing)
    print(f"wrote {ok} golden files to {os.path.normpath(OUT)}; "
          f"resolver keys exercised: {len(keys) - len(missing)} of {len(keys)}")
    for k, v in FAILURES.items():
        print(f"not converted: {k}: {v}", file=sys.stderr)


if __name__ == "__main__":
    main()
