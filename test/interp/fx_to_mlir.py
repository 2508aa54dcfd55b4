"""Test fixture: writes an ExportedProgram as aten-dialect MLIR in which every
node is the generic `aten.operator "aten::name.overload"` with the schema's
tensor arguments as operands and the others as attributes named after the
schema argument (`self` → `self_arg`). Parameters and buffers become extra
arguments named after their state_dict key.

This is only enough of an importer to run whole exported models through the
executor in tests; it is not the project's importer."""

import operator

import numpy as np
import torch

DTYPES = {
    torch.float32: "f32", torch.float16: "f16", torch.float64: "f64", torch.bfloat16: "bf16",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "ui8", torch.bool: "i1",
}


def ttype(val) -> str:
    dims = "x".join(str(int(d)) for d in val.shape)
    e = DTYPES[val.dtype]
    return f"tensor<{dims}x{e}>" if dims else f"tensor<{e}>"


def attr(v, arg_type) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v} : i64"
    if isinstance(v, float):
        if v == float("inf"):
            return "0x7FF0000000000000 : f64"
        if v == float("-inf"):
            return "0xFFF0000000000000 : f64"
        return f"{v:.17e} : f64"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, torch.dtype):
        return DTYPES[v]
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, bool)) for x in v):
        return "[" + ", ".join(str(int(x)) for x in v) + "]"
    if isinstance(v, (list, tuple)) and all(isinstance(x, float) for x in v):
        return "[" + ", ".join(f"{x:.17e} : f64" for x in v) + "]"
    if isinstance(v, torch.memory_format) or isinstance(v, torch.layout) or isinstance(v, torch.device):
        return None
    raise NotImplementedError(f"attribute {v!r} of type {arg_type}")


def export_to_mlir(ep):
    """Returns (mlir text, [(arg name, tensor or None for user inputs)])."""
    sig = ep.graph_signature
    state = {**ep.state_dict, **getattr(ep, "constants", {})}
    names, lines, args = {}, [], []
    param_of = {**sig.inputs_to_parameters, **sig.inputs_to_buffers, **getattr(sig, "inputs_to_lifted_tensor_constants", {})}
    counter = [0]

    def fresh():
        counter[0] += 1
        return f"%v{counter[0]}"

    for node in ep.graph.nodes:
        if node.op == "placeholder":
            key = param_of.get(node.name)
            arg_name = key if key is not None else node.name
            names[node.name] = f"%{node.name}"
            args.append((node.name, arg_name, node.meta["val"], state.get(key) if key is not None else None))
        elif node.op == "call_function" and node.target is operator.getitem:
            src, idx = node.args
            names[node.name] = names[src.name][idx]
        elif node.op == "call_function":
            schema = node.target._schema
            qual = f"{schema.name}.{schema.overload_name or 'default'}"
            operands, operand_types, attrs = [], [], []
            kwargs = dict(node.kwargs)
            for i, a in enumerate(schema.arguments):
                v = node.args[i] if i < len(node.args) else kwargs.get(a.name, a.default_value if a.has_default_value() else None)
                t = str(a.type)
                if t.startswith("Tensor") or t.startswith("Optional[Tensor]") or t == "List[Tensor]" or t.startswith("List[Optional[Tensor]]"):
                    vs = v if isinstance(v, (list, tuple)) else [v]
                    for x in vs:
                        if x is None:
                            continue
                        if isinstance(x, (int, float, bool)):
                            # a Python number where the schema wants a Tensor
                            # (a "wrapped number"): a 0-d tensor
                            ty = "tensor<i1>" if isinstance(x, bool) else ("tensor<f64>" if isinstance(x, float) else "tensor<i64>")
                            tmp = fresh()
                            lines.append(f'  {tmp} = aten.operator "aten::scalar_tensor.default"() {{s = {attr(x, "Scalar")}}} : () -> {ty}')
                            operands.append(tmp)
                            operand_types.append(ty)
                            continue
                        operands.append(names[x.name])
                        operand_types.append(ttype(x.meta["val"]))
                else:
                    if isinstance(v, torch.fx.Node):
                        raise NotImplementedError(f"dynamic scalar argument {a.name} of {qual}")
                    text = attr(v, t)
                    if text is not None:
                        attrs.append(f"{'self_arg' if a.name == 'self' else a.name} = {text}")
            val = node.meta["val"]
            outs = list(val) if isinstance(val, (tuple, list)) else [val]
            res = [fresh() for _ in outs]
            names[node.name] = res if isinstance(val, (tuple, list)) else res[0]
            attr_text = (" {" + ", ".join(attrs) + "}") if attrs else ""
            lines.append(
                f'  {", ".join(res)} = aten.operator "{qual}"({", ".join(operands)}){attr_text} : '
                f'({", ".join(operand_types)}) -> ({", ".join(ttype(o) for o in outs)})'
            )
        elif node.op == "output":
            outs = node.args[0]
            ret = [names[o.name] for o in outs]
            ret_types = [ttype(o.meta["val"]) for o in outs]
            result_names = [o.name for o in outs]
    arg_text = ", ".join(f'%{n}: {ttype(v)} {{coreai.name = "{an}"}}' for n, an, v, _ in args)
    res_text = ", ".join(f'{t} {{coreai.name = "{n}"}}' for t, n in zip(ret_types, result_names))
    text = (
        f"func.func @main({arg_text}) -> ({res_text}) {{\n" + "\n".join(lines) +
        f"\n  return {', '.join(ret)} : {', '.join(ret_types)}\n}}\n"
    )
    return text, [(an, None if t is None else t.detach().numpy()) for _, an, _, t in args], result_names


def state_inputs(arg_list, user_inputs):
    """The .npz feed: user inputs by position, parameters by name."""
    feed, k = {}, 0
    for name, value in arg_list:
        if value is None:
            feed[name] = np.asarray(user_inputs[k]).copy(order="C")
            k += 1
        else:
            feed[name] = np.asarray(value).copy(order="C")
    return feed
