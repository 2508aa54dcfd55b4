"""The model zoo: small random-weight configurations of Hugging Face
transformers and timm architectures, built by hand (nothing is downloaded:
transformers models from a config, timm with `pretrained=False`).

`MODELS` maps a name to (builder, Info); `build(name)` returns `(module in
eval mode, example_inputs, Info)` with every random number seeded (weights from
`torch.manual_seed(0)`, inputs from their own generators), so two builds
give the same model and inputs. Parameters an architecture initializes to
zeros get small random values (`fill_zeros`).

Sizes: decoder LMs have vocab 128, hidden 64, 2 layers, 4 heads (2 KV
heads), input_ids (1, 8); encoders alike; vision models take 32-64 px
images, timm models shrunk by their own width/depth arguments where they
take them. Language models run with `use_cache=False` and return the
logits only.

`Info.dynamic` says how the model is exported with a dynamic dimension (a
sequence length, an image side, an audio length): the `dynamic_shapes`
argument and the inputs to run the one asset at (the example size
included). A model without a dynamic case (its architecture fixes that
dimension, or its dynamic export takes minutes) has `dynamic=None` and the
reason in `Info.no_dynamic`.
"""

from dataclasses import dataclass

import torch

VOCAB = 128
SEQ = 8
LENGTHS = (5, 8, 13)  # the sequence lengths one dynamic LM asset runs at


@dataclass
class Dynamic:
    """A dynamic export: `shapes()` is torch.export's `dynamic_shapes`
    (built on demand: Dim objects are per export), `inputs` the example
    inputs of each size the asset runs at."""

    shapes: object
    inputs: list
    what: str  # "sequence length 5, 8, 13", "image 32 and 64 px"


@dataclass
class Info:
    source: str  # "transformers" or "timm"
    family: str  # "decoder", "encoder", "vision", "audio"
    what: str  # the architecture and what it exercises
    dynamic: Dynamic | None = None
    no_dynamic: str = ""  # why there is no dynamic case, when dynamic is None


def ids(n=SEQ, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, VOCAB, (1, n), generator=g)


def image(side, seed=0, channels=3):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(1, channels, side, side, generator=g)


def audio(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(1, n, generator=g)


def seq_dynamic(count=1, lengths=LENGTHS):
    """A dynamic sequence length of each of the `count` token inputs."""
    def shapes():
        return tuple({1: torch.export.Dim(f"seq{i}", min=2, max=32)} for i in range(count))
    return Dynamic(shapes, [tuple(ids(n, seed=n + i) for i in range(count)) for n in lengths],
                   "sequence length " + ", ".join(map(str, lengths)))


def image_dynamic(sides, multiple):
    """Square images of each side in `sides`, height and width dynamic in
    steps of `multiple` (the model's total stride)."""
    def shapes():
        h = torch.export.Dim("h", min=1, max=8)
        w = torch.export.Dim("w", min=1, max=8)
        return ({2: multiple * h, 3: multiple * w},)
    return Dynamic(shapes, [(image(s, seed=s),) for s in sides], "image " + " and ".join(map(str, sides)) + " px")


# ---------------------------------------------------------------- wrappers

class Logits(torch.nn.Module):
    """forward(input_ids) -> logits (use_cache=False)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


class Field(torch.nn.Module):
    """forward(x) -> one field of a transformers output (`last_hidden_state`,
    `logits`, ...), the model called with the keyword `arg`."""

    def __init__(self, model, arg, field_name):
        super().__init__()
        self.model, self.arg, self.field_name = model, arg, field_name

    def forward(self, x):
        return getattr(self.model(**{self.arg: x}), self.field_name)


class Seq2SeqLogits(torch.nn.Module):
    """forward(input_ids, decoder_input_ids) -> logits (use_cache=False)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, decoder_input_ids):
        return self.model(input_ids=input_ids, decoder_input_ids=decoder_input_ids, use_cache=False).logits


class Detection(torch.nn.Module):
    """forward(pixel_values) -> (class logits, boxes)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, pixel_values):
        out = self.model(pixel_values=pixel_values)
        return out.logits, out.pred_boxes


# ---------------------------------------------------------------- builders

DECODER = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
               num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def causal_lm(config, what, model_class=None, **kw):
    """A decoder LM from transformers' `config` class name."""
    def build():
        import transformers

        cfg = getattr(transformers, config)(**kw)
        if model_class:
            model = getattr(transformers, model_class)(cfg)
        else:
            model = transformers.AutoModelForCausalLM.from_config(cfg)
        return Logits(model), (ids(),)
    return build, Info("transformers", "decoder", what, seq_dynamic())


def encoder(config, model_class, what, field_name="last_hidden_state", **kw):
    """A text encoder on input_ids."""
    def build():
        import transformers

        model = getattr(transformers, model_class)(getattr(transformers, config)(**kw))
        return Field(model, "input_ids", field_name), (ids(),)
    return build, Info("transformers", "encoder", what, seq_dynamic())


def vision(config, model_class, what, side, field_name="logits", dynamic=None, no_dynamic="", **kw):
    """A transformers vision model on pixel_values (1, 3, side, side)."""
    def build():
        import transformers

        model = getattr(transformers, model_class)(getattr(transformers, config)(**kw))
        return Field(model, "pixel_values", field_name), (image(side),)
    return build, Info("transformers", "vision", what, dynamic, no_dynamic)


def _t5():
    import transformers

    cfg = transformers.T5Config(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                num_decoder_layers=2, num_heads=4, decoder_start_token_id=0, pad_token_id=0)
    return Seq2SeqLogits(transformers.T5ForConditionalGeneration(cfg)), (ids(), ids(4, seed=1))


T5 = (_t5, Info("transformers", "encoder", "T5 encoder-decoder (relative position buckets, RMS norm)",
                seq_dynamic(count=2)))


def _whisper_encoder():
    import transformers

    cfg = transformers.WhisperConfig(vocab_size=VOCAB, d_model=64, encoder_layers=2, encoder_attention_heads=4,
                                     decoder_layers=1, decoder_attention_heads=4, encoder_ffn_dim=128,
                                     decoder_ffn_dim=128, num_mel_bins=80, max_source_positions=16,
                                     max_target_positions=32, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                                     decoder_start_token_id=1, suppress_tokens=[], begin_suppress_tokens=[])
    g = torch.Generator().manual_seed(0)
    model = transformers.WhisperModel(cfg).get_encoder()
    return Field(model, "input_features", "last_hidden_state"), (torch.randn(1, 80, 32, generator=g),)


WHISPER_ENCODER = (_whisper_encoder, Info(
    "transformers", "audio", "Whisper encoder (conv stem on log-mel features, sinusoidal positions)",
    no_dynamic="WhisperEncoder raises unless the features are 2 x max_source_positions frames long"))


def _wav2vec2():
    import transformers

    cfg = transformers.Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                      intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                                      conv_kernel=(10, 3), num_conv_pos_embeddings=16,
                                      num_conv_pos_embedding_groups=2, vocab_size=VOCAB)
    return Field(transformers.Wav2Vec2Model(cfg), "input_values", "last_hidden_state"), (audio(400),)


def _samples():
    # Multiples of 10 samples: torch.export's guards on the conv stack's
    # output lengths hold for those (its suggested fix).
    return ({1: 10 * torch.export.Dim("samples", min=20, max=200)},)


WAV2VEC2 = (_wav2vec2, Info("transformers", "audio", "Wav2Vec2 (conv feature encoder, weight-normed positional conv)",
                            Dynamic(_samples, [(audio(400),), (audio(640, seed=1),)], "400 and 640 samples")))


def _detr():
    import transformers

    cfg = transformers.DetrConfig(use_timm_backbone=True, backbone="test_resnet", use_pretrained_backbone=False,
                                  d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                                  decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                                  num_queries=10, num_labels=10)
    return Detection(transformers.DetrForObjectDetection(cfg)), (image(64),)


DETR = (_detr, Info("transformers", "vision", "DETR (timm test_resnet backbone, sine positions, encoder-decoder)",
                    image_dynamic((64, 96), 32)))


def timm_model(name, what, side, dynamic_multiple=None, no_dynamic="", model_class=None, **kw):
    """timm's `name` with pretrained=False and 10 classes on (1, 3, side,
    side); `kw` shrinks it where the architecture takes width arguments.
    `model_class`: the timm class built directly with `kw` instead (for
    models whose registered function fixes the widths `kw` shrinks)."""
    def build():
        import timm

        if model_class:
            return getattr(timm.models, model_class)(num_classes=10, **kw), (image(side),)
        return timm.create_model(name, pretrained=False, num_classes=10, **kw), (image(side),)
    dynamic = image_dynamic((side, side + dynamic_multiple), dynamic_multiple) if dynamic_multiple else None
    return build, Info("timm", "vision", what, dynamic, no_dynamic)


def _poolformer():
    from timm.models.metaformer import GroupNorm1NoBias, MetaFormer

    # poolformerv2_s12's configuration with one block per stage and narrower stages.
    model = MetaFormer(num_classes=10, depths=(1, 1, 1, 1), dims=(16, 32, 48, 64), norm_layers=GroupNorm1NoBias,
                       use_mlp_head=False)
    return model, (image(64),)


POOLFORMER = (_poolformer, Info("timm", "vision", "PoolFormerV2 (pooling token mixer, StarReLU; 1 block per stage)",
                                image_dynamic((64, 96), 32)))

SLOW_DYNAMIC = ("torch.export with a dynamic image side takes minutes on its {} (measured {} here); "
                "too slow for the suite")
POSITIONS = "learned position embeddings of a fixed patch grid"

MODELS = {
    # decoder LMs (transformers)
    "llama": causal_lm("LlamaConfig", "Llama (RMS norm, RoPE, SwiGLU, grouped-query attention)", **DECODER),
    "qwen2": causal_lm("Qwen2Config", "Qwen2 (QKV bias)", **DECODER),
    "qwen3": causal_lm("Qwen3Config", "Qwen3 (QK norm)", head_dim=16, **DECODER),
    "mistral": causal_lm("MistralConfig", "Mistral (sliding-window attention, window 4 < sequence 8)",
                         sliding_window=4, **DECODER),
    "gemma": causal_lm("GemmaConfig", "Gemma (scaled embeddings, GeGLU, (1 + w) RMS norm)", head_dim=16, **DECODER),
    "gemma2": causal_lm("Gemma2Config", "Gemma2 (attention and final logit soft-capping, alternating sliding window)",
                        head_dim=16, sliding_window=4, **DECODER),
    "gemma3": causal_lm("Gemma3TextConfig", "Gemma3 text (QK norm, local/global layers, two RoPE bases)",
                        "Gemma3ForCausalLM", head_dim=16, sliding_window=4, **DECODER),
    "phi3": causal_lm("Phi3Config", "Phi-3 (fused QKV and gate-up projections)", pad_token_id=0, **DECODER),
    "olmo2": causal_lm("Olmo2Config", "OLMo2 (post-norm blocks, QK norm)", **DECODER),
    "gpt2": causal_lm("GPT2Config", "GPT-2 (learned positions, Conv1D projections, GELU-tanh)",
                      vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64),
    "gpt_neox": causal_lm("GPTNeoXConfig", "GPT-NeoX (parallel attention and MLP, partial rotary)",
                          vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, max_position_embeddings=64),
    "opt": causal_lm("OPTConfig", "OPT (learned positions with offset 2, ReLU)",
                     vocab_size=VOCAB, hidden_size=64, ffn_dim=128, num_hidden_layers=2, num_attention_heads=4,
                     word_embed_proj_dim=64, max_position_embeddings=64),
    "bloom": causal_lm("BloomConfig", "BLOOM (ALiBi position biases, embedding layer norm)",
                       vocab_size=VOCAB, hidden_size=64, n_layer=2, n_head=4),
    "falcon": causal_lm("FalconConfig", "Falcon (multi-query attention, parallel attention)",
                        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4),
    "phi": causal_lm("PhiConfig", "Phi-2 (partial rotary, parallel attention and MLP, dense head bias)",
                     vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=4, max_position_embeddings=64),
    "stablelm": causal_lm("StableLmConfig", "StableLM (partial rotary, layer norm)", vocab_size=VOCAB,
                          hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2, max_position_embeddings=64),
    "mamba": causal_lm("MambaConfig", "Mamba (selective state space scan, causal conv1d)", "MambaForCausalLM",
                       vocab_size=VOCAB, hidden_size=64, state_size=8, num_hidden_layers=2, expand=2,
                       conv_kernel=4),
    "mixtral": causal_lm("MixtralConfig", "Mixtral (sparse MoE: 4 experts, top-2 routing)",
                         num_local_experts=4, num_experts_per_tok=2, **DECODER),
    "qwen3_moe": causal_lm("Qwen3MoeConfig", "Qwen3-MoE (4 experts, top-2, normalized top-k weights)",
                           head_dim=16, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                           decoder_sparse_step=1, mlp_only_layers=[], **DECODER),
    # encoders (transformers)
    "bert": encoder("BertConfig", "BertModel", "BERT (absolute positions, token types, GELU)",
                    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=64),
    "roberta": encoder("RobertaConfig", "RobertaModel", "RoBERTa (positions from the padding mask, cumsum)",
                       vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                       intermediate_size=128, max_position_embeddings=66, pad_token_id=1),
    "distilbert": encoder("DistilBertConfig", "DistilBertModel", "DistilBERT", vocab_size=VOCAB, dim=64,
                          n_layers=2, n_heads=4, hidden_dim=128, max_position_embeddings=64),
    "albert": encoder("AlbertConfig", "AlbertModel", "ALBERT (factorized embeddings, one shared layer)",
                      vocab_size=VOCAB, embedding_size=32, hidden_size=64, num_hidden_layers=2,
                      num_attention_heads=4, intermediate_size=128, max_position_embeddings=64),
    "electra": encoder("ElectraConfig", "ElectraModel", "ELECTRA discriminator (embedding projection)",
                       vocab_size=VOCAB, embedding_size=32, hidden_size=64, num_hidden_layers=2,
                       num_attention_heads=4, intermediate_size=128, max_position_embeddings=64),
    "t5": T5,
    # vision (transformers)
    "vit": vision("ViTConfig", "ViTForImageClassification", "ViT (patch embedding, CLS token)", 32,
                  no_dynamic=POSITIONS, image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2,
                  num_attention_heads=4, intermediate_size=128, num_labels=10),
    "clip_vision": vision("CLIPVisionConfig", "CLIPVisionModel", "CLIP vision tower (quick-GELU, pre-norm)", 32,
                          field_name="pooler_output", no_dynamic=POSITIONS, image_size=32, patch_size=8,
                          hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4),
    "swin": vision("SwinConfig", "SwinForImageClassification", "Swin (shifted windows, patch merging)", 32,
                   no_dynamic=SLOW_DYNAMIC.format("window partition", "83 s export + 40 s decomposition"),
                   image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4,
                   num_labels=10),
    "convnext": vision("ConvNextConfig", "ConvNextForImageClassification", "ConvNeXt (7x7 depthwise, layer scale)",
                       64, dynamic=image_dynamic((64, 96), 32), hidden_sizes=[16, 32], depths=[1, 1],
                       num_stages=2, num_labels=10),
    "segformer": vision("SegformerConfig", "SegformerForSemanticSegmentation",
                        "SegFormer (overlapping patches, reduced-key attention, all-MLP decoder)", 64,
                        dynamic=image_dynamic((64, 96), 32), depths=[1, 1, 1, 1],
                        hidden_sizes=[8, 16, 32, 64], num_attention_heads=[1, 1, 2, 2], decoder_hidden_size=32,
                        num_labels=10),
    "mobilevit": vision("MobileViTConfig", "MobileViTForImageClassification",
                        "MobileViT (unfold into patches, transformer, fold back)", 64,
                        dynamic=image_dynamic((64, 96), 32), image_size=64, num_labels=10,
                        hidden_sizes=[32, 40, 48], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64]),
    "detr": DETR,
    # audio (transformers)
    "wav2vec2": WAV2VEC2,
    "whisper_encoder": WHISPER_ENCODER,
    # timm
    "timm_resnet18": timm_model("resnet18", "ResNet-18 (basic blocks, batch norm)", 64, 32,
                                channels=(16, 32, 64, 128), stem_width=16),
    "timm_efficientnet": timm_model("test_efficientnet",
                                    "EfficientNet (MBConv, squeeze-excite, SiLU; timm's test size)", 64, 32),
    "timm_mobilenetv3": timm_model("mobilenetv3_small_050", "MobileNetV3 small 0.5 (hard-swish, SE)", 64, 32),
    "timm_convnext": timm_model("convnext_atto", "ConvNeXt atto (channels-last layer norm, GELU)", 64, 32,
                                dims=(16, 32, 48, 64), depths=(1, 1, 1, 1)),
    "timm_vit": timm_model("vit_tiny_patch16_224", "ViT tiny (64 px, 2 blocks)", 64, no_dynamic=POSITIONS,
                           img_size=64, depth=2, embed_dim=64, num_heads=2),
    "timm_deit": timm_model("deit_tiny_distilled_patch16_224", "DeiT tiny distilled (class and distillation tokens)",
                            64, no_dynamic=POSITIONS, img_size=64, depth=2, embed_dim=64, num_heads=2),
    "timm_swin": timm_model("swin_tiny_patch4_window7_224", "Swin tiny (64 px, window 4)", 64,
                            no_dynamic="relative position bias tables sized for the window grid of the image size",
                            img_size=64, window_size=4, embed_dim=16, depths=(1, 1, 1, 1), num_heads=(1, 2, 2, 4)),
    "timm_regnet": timm_model("regnetx_002", "RegNetX-200MF (group convolutions)", 64, 32),
    "timm_edgenext": timm_model("edgenext_xx_small", "EdgeNeXt (split depthwise transposed attention; depths 1-1-2-1)",
                                64, 32, depths=(1, 1, 2, 1), dims=(16, 32, 48, 64)),
    "timm_efficientformerv2": timm_model("efficientformerv2_s0",
                                         "EfficientFormerV2 (4D attention; depths 1-1-2-2, 64 px)",
                                         64, no_dynamic="attention biases sized for the feature map of the image size",
                                         img_size=64, depths=(1, 1, 2, 2), embed_dims=(16, 32, 48, 64),
                                         mlp_ratios=(4, 4, (4, 4), (4, 4))),
    "timm_levit": timm_model("levit_128s", "LeViT (attention with learned biases, hard-swish; 1 block per stage)", 64,
                             no_dynamic="attention bias tables sized for the image size", img_size=64,
                             embed_dim=(32, 48, 64), key_dim=8, num_heads=(2, 3, 4), depth=(1, 1, 1)),
    "timm_mobilevit": timm_model("mobilevit_xxs", "MobileViT xx-small", 64, no_dynamic=SLOW_DYNAMIC.format(
        "unfold into patches", "over 9 minutes")),
    "timm_ghostnet": timm_model("ghostnet_050", "GhostNet 0.5 (ghost modules, cheap depthwise features)", 64, 32),
    "timm_densenet": timm_model("densenet121", "DenseNet (dense concatenation; growth 8, blocks 2-2-2-2)", 64, 32,
                                growth_rate=8, block_config=(2, 2, 2, 2)),
    "timm_mixer": timm_model("mixer_s16_224", "MLP-Mixer (64 px, 2 blocks of width 64)", 64,
                             no_dynamic="token-mixing MLPs sized for the patch count", img_size=64,
                             model_class="MlpMixer", num_blocks=2, embed_dim=64),
    "timm_nfnet": timm_model("test_nfnet", "NFNet (normalizer-free, scaled weight standardization; timm's test size)",
                             64, 32),
    "timm_repvit": timm_model("repvit_m0_9", "RepViT (re-parameterizable depthwise blocks; depths 2-2-2-2)", 64, 32,
                              embed_dim=(16, 32, 48, 64), depth=(2, 2, 2, 2)),
    "timm_poolformer": POOLFORMER,
}


def train_peaked(model, steps=300, seed=0, length=32, batch=16):
    """`model` (a transformers causal LM of the zoo's vocabulary) trained in
    place, with Adam, on a synthetic language whose next token is a fixed
    random permutation of the current one: its logits become peaked, as a
    trained model's are, where random initial weights give nearly flat ones
    (whose argmax any rounding flips). Deterministic for a seed. Returns the
    final loss."""
    g = torch.Generator().manual_seed(seed)
    successor = torch.randperm(VOCAB, generator=g)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    loss = None
    for _ in range(steps):
        start = torch.randint(0, VOCAB, (batch,), generator=g)
        seq = [start]
        for _ in range(length - 1):
            seq.append(successor[seq[-1]])
        x = torch.stack(seq, dim=1)
        loss = model(input_ids=x, labels=x).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    return float(loss)


def fill_zeros(model):
    """Gives every all-zero float parameter small random values (seeded):
    architectures initialize some to zeros (classifier heads, relative
    position bias tables, attention biases, biases, gains), and a zero
    parameter hides the path it feeds from the comparison."""
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            if p.is_floating_point() and not p.any():
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)


def build(name):
    """(module in eval mode, example_inputs, Info) of zoo model `name`."""
    builder, info = MODELS[name]
    torch.manual_seed(0)
    model, inputs = builder()
    fill_zeros(model)
    return model.eval(), inputs, info


def build_info(name):
    """The Info of zoo model `name`, without building it."""
    return MODELS[name][1]
