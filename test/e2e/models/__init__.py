"""The export corpus: model factories returning (nn.Module, example_inputs).

CORPUS lists every model as (name, "module:factory", slow). Random weights
and inputs are seeded in each factory.
"""

CORPUS = [
    # op families
    ("unary_float", "elementwise:unary_float", False),
    ("binary_broadcast", "elementwise:binary_broadcast", False),
    ("activations", "elementwise:activations", False),
    ("scalar_overloads", "elementwise:scalar_overloads", False),
    ("int_true_division", "integer:true_division", False),
    ("int_large_sums", "integer:large_sums", False),
    ("int_floor_mod", "integer:floor_mod", False),
    ("comparisons_masks", "compare:comparisons_masks", False),
    ("where_clamp", "compare:where_clamp", False),
    ("reductions", "reduce:reductions", False),
    ("argmax_topk", "reduce:argmax_topk", False),
    ("cumsum_logsumexp", "reduce:cumsum_logsumexp", False),
    ("reshape_permute", "shape:reshape_permute", False),
    ("cat_split_stack", "shape:cat_split_stack", False),
    ("slice_select_flip", "shape:slice_select_flip", False),
    ("expand_repeat_tile", "shape:expand_repeat_tile", False),
    ("gather_scatter", "indexing:gather_scatter", False),
    ("index_tensor", "indexing:index_tensor", False),
    ("index_put_masked", "indexing:index_put_masked", False),
    ("embedding", "indexing:embedding", False),
    ("conv2d_pool", "conv:conv2d_pool", False),
    ("conv1d_conv3d", "conv:conv1d_conv3d", False),
    ("upsample", "conv:upsample", False),
    ("adaptive_pool", "conv:adaptive_pool", False),
    ("batch_layer_norm", "norms:batch_layer_norm", False),
    ("group_instance_norm", "norms:group_instance_norm", False),
    ("sdpa_plain", "attention:sdpa_plain", False),
    ("mha_module", "attention:mha_module", False),
    ("cond_branch", "control:cond_branch", False),
    ("while_loop_counter", "control:while_loop_counter", False),
    ("stateful_buffer", "control:stateful_buffer", False),
    # whole models
    ("resnet18", "whole:resnet18", True),
    ("mobilenet_v3_small", "whole:mobilenet_v3_small", True),
    ("vit_tiny", "whole:vit_tiny", True),
    ("vit_tiny_dynamic_seq", "whole:vit_tiny_dynamic_seq", False),
    ("llama_block", "transformer:llama_block", False),
    ("llama_block_dynamic_seq", "transformer:llama_block_dynamic_seq", False),
    ("moe_topk", "transformer:moe_topk", False),
    ("conv_gn_block", "convblocks:conv_gn_block", False),
    ("pixel_shuffle_reflect", "convblocks:pixel_shuffle_reflect", False),
    ("transposed_decoder", "convblocks:transposed_decoder", False),
    ("fp16_mlp", "fp16:fp16_mlp", False),
    ("fp16_conv", "fp16:fp16_conv", False),
    ("dynamic_batch_mlp", "dynamic:dynamic_batch_mlp", False),
    ("custom_op", "custom:custom_op", False),
    ("multi_output_dict", "shape:multi_output_dict", False),
]

# Extra flags of the exporter per model (e.g. dynamic dims).
EXPORT_FLAGS = {
    "dynamic_batch_mlp": ["--dynamic-dims", "x:0=1:64"],
    # Dynamic sequence length (test_dynamic_corpus.py runs them at others).
    "llama_block_dynamic_seq": ["--dynamic-dims", "x:1=1:64"],
    "vit_tiny_dynamic_seq": ["--dynamic-dims", "tokens:1=1:64"],
}
