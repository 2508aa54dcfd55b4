//! The typed builders generated from the coreai and coreaix ODS build ops
//! that verify and print in the form coreai-core prints.

use coreai::context::create_context;
use coreai::dialects::coreai as core;
use coreai::dialects::coreaix;
use melior::{
    dialect::func,
    ir::{
        attribute::{DenseElementsAttribute, TypeAttribute},
        operation::OperationLike,
        r#type::{FunctionType, RankedTensorType},
        Block, BlockLike, Location, Module, Region, RegionLike, Type,
    },
};

#[test]
fn builds_and_verifies_elementwise_and_broadcasting_ops() {
    let context = create_context();
    let location = Location::unknown(&context);
    let module = Module::new(location);
    let f32 = Type::float32(&context);
    let t23: Type = RankedTensorType::new(&[2, 3], f32, None).into();
    let scalar: Type = RankedTensorType::new(&[], f32, None).into();

    let block = Block::new(&[(t23, location)]);
    let x = block.argument(0).unwrap().into();
    let two = block.append_operation(
        core::constant(
            &context,
            scalar,
            DenseElementsAttribute::new(
                scalar,
                &[melior::ir::attribute::FloatAttribute::new(&context, f32, 2.0).into()],
            )
            .unwrap()
            .into(),
            location,
        )
        .into(),
    );
    let abs = block.append_operation(core::abs(&context, t23, x, location).into());
    let mul = block.append_operation(
        core::decomposable_broadcasting_mul(
            &context,
            t23,
            abs.result(0).unwrap().into(),
            two.result(0).unwrap().into(),
            location,
        )
        .into(),
    );
    block.append_operation(func::r#return(&[mul.result(0).unwrap().into()], location));
    let region = Region::new();
    region.append_block(block);
    module.body().append_operation(func::func(
        &context,
        melior::ir::attribute::StringAttribute::new(&context, "f"),
        TypeAttribute::new(FunctionType::new(&context, &[t23], &[t23]).into()),
        region,
        &[],
        location,
    ));
    assert!(module.as_operation().verify());
    let text = module.as_operation().to_string();
    assert!(
        text.contains("coreai.abs %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>"),
        "{text}"
    );
    assert!(
        text.contains(
            "coreai.decomposable.broadcasting_mul %1, %0 : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>"
        ),
        "{text}"
    );
    assert!(
        text.contains("coreai.constant dense<2.000000e+00> : tensor<f32>"),
        "{text}"
    );
}

/// Appends the ops `build` adds to a function taking `args`, verifies the
/// module and returns its printed form.
fn verified_text<'c>(
    context: &'c melior::Context,
    args: &[Type<'c>],
    build: impl FnOnce(&Block<'c>, Location<'c>),
) -> String {
    let location = Location::unknown(context);
    let module = Module::new(location);
    let block = Block::new(&args.iter().map(|t| (*t, location)).collect::<Vec<_>>());
    build(&block, location);
    block.append_operation(func::r#return(&[], location));
    let region = Region::new();
    region.append_block(block);
    module.body().append_operation(func::func(
        context,
        melior::ir::attribute::StringAttribute::new(context, "f"),
        TypeAttribute::new(FunctionType::new(context, args, &[]).into()),
        region,
        &[],
        location,
    ));
    let text = module.as_operation().to_string();
    assert!(module.as_operation().verify(), "does not verify:\n{text}");
    text
}

fn tensor<'c>(shape: &[u64], element: Type<'c>) -> Type<'c> {
    RankedTensorType::new(shape, element, None).into()
}

/// A `coreai.constant` of `ty` (an integer tensor with element type
/// `element`) holding `values`.
fn int_constant<'c>(
    context: &'c melior::Context,
    ty: Type<'c>,
    element: Type<'c>,
    values: &[i64],
    location: Location<'c>,
) -> melior::ir::Operation<'c> {
    let elements: Vec<melior::ir::Attribute> = values
        .iter()
        .map(|v| melior::ir::attribute::IntegerAttribute::new(element, *v).into())
        .collect();
    core::constant(
        context,
        ty,
        DenseElementsAttribute::new(ty, &elements).unwrap().into(),
        location,
    )
    .into()
}

#[test]
fn every_elementwise_unary_op_builds_verifies_and_prints() {
    let context = create_context();
    let f32 = Type::float32(&context);
    let t = tensor(&[2, 3], f32);
    let b = tensor(
        &[2, 3],
        melior::ir::r#type::IntegerType::new(&context, 1).into(),
    );
    macro_rules! unary {
        ($block:ident, $loc:ident, $x:ident, $ty:ident; $($f:ident => $name:literal),* $(,)?) => {{
            $( $block.append_operation(core::$f(&context, $ty, $x, $loc).into()); )*
            vec![$($name),*]
        }};
    }
    let mut names = Vec::new();
    let text = verified_text(&context, &[t, b], |block, location| {
        let x = block.argument(0).unwrap().into();
        let p = block.argument(1).unwrap().into();
        names = unary!(block, location, x, t;
            abs => "abs", acos => "acos", acosh => "acosh", asin => "asin", asinh => "asinh",
            atan => "atan", atanh => "atanh", cos => "cos", cosh => "cosh", erf => "erf",
            exp => "exp", log => "log", round => "round", rsqrt => "rsqrt", sin => "sin",
            sinh => "sinh", sqrt => "sqrt", tan => "tan", tanh => "tanh");
        names.extend(unary!(block, location, p, b; not => "not"));
    });
    assert_eq!(names.len(), 20);
    for name in &names[..19] {
        let expected = format!("= coreai.{name} %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>");
        assert!(text.contains(&expected), "{expected} not in\n{text}");
    }
    assert!(
        text.contains("= coreai.not %arg1 : tensor<2x3xi1> -> tensor<2x3xi1>"),
        "{text}"
    );
}

#[test]
fn every_elementwise_binary_op_builds_verifies_and_prints() {
    let context = create_context();
    let f32 = Type::float32(&context);
    let si32: Type = melior::ir::r#type::IntegerType::signed(&context, 32).into();
    let i1: Type = melior::ir::r#type::IntegerType::new(&context, 1).into();
    let (tf, ts, tb) = (
        tensor(&[2, 3], f32),
        tensor(&[2, 3], si32),
        tensor(&[2, 3], i1),
    );
    let (sf, ss, sb) = (tensor(&[], f32), tensor(&[], si32), tensor(&[], i1));
    // Same-shape ops: (builder, name, operand type, result type).
    macro_rules! binary {
        ($block:ident, $loc:ident, $out:ident; $($f:ident => $name:literal : $a:ident, $r:ident);* $(;)?) => {{
            $(
                let x = $block.argument($a.0).unwrap().into();
                let y = $block.argument($a.0).unwrap().into();
                $block.append_operation(core::$f(&context, $r, x, y, $loc).into());
                $out.push(format!("= coreai.{} %arg{}, %arg{} : ({}, {}) -> {}", $name, $a.0, $a.0, $a.1, $a.1, $r));
            )*
        }};
    }
    let mut expected = Vec::new();
    let f = (0usize, tf);
    let s = (1usize, ts);
    let b = (2usize, tb);
    let text = verified_text(&context, &[tf, ts, tb, sf, ss, sb], |block, location| {
        binary!(block, location, expected;
            add => "add": f, tf; divide => "divide": f, tf; floor_divide => "floor_divide": f, tf;
            maximum => "maximum": f, tf; minimum => "minimum": f, tf; modulo => "modulo": f, tf;
            mul => "mul": f, tf; pow => "pow": f, tf; sub => "sub": f, tf;
            bitwise_and => "bitwise_and": s, ts; bitwise_or => "bitwise_or": s, ts;
            bitwise_xor => "bitwise_xor": s, ts;
            and => "and": b, tb; or => "or": b, tb; xor => "xor": b, tb;
            equal => "equal": f, tb; not_equal => "not_equal": f, tb; greater => "greater": f, tb;
        );
        // Broadcasting ops: a 2x3 operand with a 0-D one.
        macro_rules! broadcasting {
            ($($f:ident => $name:literal : $a:expr, $c:expr, $r:expr);* $(;)?) => {{
                $(
                    let x = block.argument($a).unwrap().into();
                    let y = block.argument($c).unwrap().into();
                    block.append_operation(core::$f(&context, $r, x, y, location).into());
                    expected.push(format!(
                        "= coreai.decomposable.{} %arg{}, %arg{} : ({}, {}) -> {}",
                        $name, $a, $c, [tf, ts, tb, sf, ss, sb][$a], [tf, ts, tb, sf, ss, sb][$c], $r));
                )*
            }};
        }
        broadcasting!(
            decomposable_broadcasting_add => "broadcasting_add": 0, 3, tf;
            decomposable_broadcasting_sub => "broadcasting_sub": 0, 3, tf;
            decomposable_broadcasting_mul => "broadcasting_mul": 0, 3, tf;
            decomposable_broadcasting_divide => "broadcasting_divide": 0, 3, tf;
            decomposable_broadcasting_floor_divide => "broadcasting_floor_divide": 0, 3, tf;
            decomposable_broadcasting_modulo => "broadcasting_modulo": 0, 3, tf;
            decomposable_broadcasting_pow => "broadcasting_pow": 0, 3, tf;
            decomposable_broadcasting_maximum => "broadcasting_maximum": 0, 3, tf;
            decomposable_broadcasting_minimum => "broadcasting_minimum": 0, 3, tf;
            decomposable_broadcasting_bitwise_and => "broadcasting_bitwise_and": 1, 4, ts;
            decomposable_broadcasting_bitwise_or => "broadcasting_bitwise_or": 1, 4, ts;
            decomposable_broadcasting_bitwise_xor => "broadcasting_bitwise_xor": 1, 4, ts;
            decomposable_broadcasting_and => "broadcasting_and": 2, 5, tb;
            decomposable_broadcasting_or => "broadcasting_or": 2, 5, tb;
            decomposable_broadcasting_xor => "broadcasting_xor": 2, 5, tb;
            decomposable_broadcasting_equal => "broadcasting_equal": 0, 3, tb;
            decomposable_broadcasting_not_equal => "broadcasting_not_equal": 0, 3, tb;
            decomposable_broadcasting_greater => "broadcasting_greater": 0, 3, tb;
        );
    });
    assert_eq!(expected.len(), 18 + 18);
    for line in &expected {
        assert!(text.contains(line.as_str()), "{line} not in\n{text}");
    }
}

#[test]
fn a_representative_op_of_every_other_group_builds_verifies_and_prints() {
    let context = create_context();
    let f32 = Type::float32(&context);
    let si32: Type = melior::ir::r#type::IntegerType::signed(&context, 32).into();
    let ui32: Type = melior::ir::r#type::IntegerType::unsigned(&context, 32).into();
    let t23 = tensor(&[2, 3], f32);
    let image = Type::parse(&context, "!coreai.image<<k24RGB> x 2 x 3>").unwrap();
    let hw = Type::parse(
        &context,
        "tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>",
    )
    .unwrap();
    let text = verified_text(&context, &[t23, image], |block, location| {
        let x: melior::ir::Value = block.argument(0).unwrap().into();
        let img = block.argument(1).unwrap().into();
        macro_rules! constant {
            ($ty:expr, $element:expr, $values:expr) => {
                block
                    .append_operation(int_constant(&context, $ty, $element, $values, location))
                    .result(0)
                    .unwrap()
                    .into()
            };
        }
        let axes = constant!(tensor(&[1], si32), si32, &[1]);
        let axis = constant!(tensor(&[], si32), si32, &[1]);
        let perm = constant!(tensor(&[2], ui32), ui32, &[1, 0]);
        let shape = constant!(tensor(&[1], si32), si32, &[6]);
        let pads = constant!(tensor(&[4], ui32), ui32, &[0, 0, 1, 1]);
        let zero = block.append_operation(
            core::constant(
                &context,
                tensor(&[], f32),
                DenseElementsAttribute::new(
                    tensor(&[], f32),
                    &[melior::ir::attribute::FloatAttribute::new(&context, f32, 0.0).into()],
                )
                .unwrap()
                .into(),
                location,
            )
            .into(),
        );
        let zero = zero.result(0).unwrap().into();
        let mode = melior::ir::Attribute::parse(&context, "#coreai.padding_mode<reflect>").unwrap();
        // Reductions, normalization, shape, layout, casts, activations,
        // padding, images and the coreaix copies.
        for op in [
            core::reduce_sum(&context, tensor(&[2, 1], f32), x, axes, location).into(),
            core::argmax(&context, tensor(&[2, 1], ui32), x, axis, location).into(),
            core::softmax(&context, t23, x, axis, location).into(),
            core::transpose(&context, tensor(&[3, 2], f32), x, perm, location).into(),
            core::reshape(&context, tensor(&[6], f32), x, shape, location).into(),
            core::get_shape(&context, tensor(&[2], ui32), x, location).into(),
            core::expand_dims(&context, tensor(&[2, 1, 3], f32), x, axes, location).into(),
            core::concat(&context, tensor(&[2, 6], f32), axis, &[x, x], location).into(),
            core::cast(&context, tensor(&[2, 3], si32), x, location).into(),
            core::gelu(&context, t23, x, location).into(),
            core::relu(&context, t23, x, location).into(),
            core::pad(
                &context,
                tensor(&[2, 5], f32),
                x,
                pads,
                zero,
                mode,
                location,
            )
            .into(),
            core::image_to_tensor(&context, img, location).into(),
            coreaix::copy_with_constraints(&context, hw, x, location).into(),
        ] {
            let op: melior::ir::Operation = op;
            block.append_operation(op);
        }
    });
    for line in [
        "coreai.reduce_sum %arg0, %0 : (tensor<2x3xf32>, tensor<1xsi32>) -> tensor<2x1xf32>",
        "coreai.argmax %arg0, %1 : (tensor<2x3xf32>, tensor<si32>) -> tensor<2x1xui32>",
        "coreai.softmax %arg0, %1 : (tensor<2x3xf32>, tensor<si32>) -> tensor<2x3xf32>",
        "coreai.transpose %arg0, %2 : (tensor<2x3xf32>, tensor<2xui32>) -> tensor<3x2xf32>",
        "coreai.reshape %arg0, %3 : (tensor<2x3xf32>, tensor<1xsi32>) -> tensor<6xf32>",
        "coreai.get_shape %arg0 : tensor<2x3xf32> -> tensor<2xui32>",
        "coreai.expand_dims %arg0, %0 : (tensor<2x3xf32>, tensor<1xsi32>) to tensor<2x1x3xf32>",
        "coreai.concat %1, %arg0, %arg0 : (tensor<si32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>",
        "coreai.cast %arg0 : tensor<2x3xf32> to tensor<2x3xsi32>",
        "coreai.gelu %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>",
        "coreai.relu %arg0 : (tensor<2x3xf32>) -> tensor<2x3xf32>",
        "coreai.pad %arg0, %4, %5 mode = <reflect> : (tensor<2x3xf32>, tensor<4xui32>, tensor<f32>) -> tensor<2x5xf32>",
        "coreai.image_to_tensor %arg1 : <<k24RGB> x 2 : i64 x 3 : i64> -> tensor<2x3x3xui8>",
        "coreaix.copy_with_constraints(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>",
    ] {
        assert!(text.contains(line), "{line} not in\n{text}");
    }
}

#[test]
fn builders_of_ops_with_element_type_constraints_reject_what_coreai_core_rejects() {
    // coreai-core rejects signless integers in coreai.abs; so does the verifier
    // of the op the typed builder creates.
    let context = create_context();
    let i64_tensor = tensor(
        &[3],
        melior::ir::r#type::IntegerType::new(&context, 64).into(),
    );
    let location = Location::unknown(&context);
    let module = Module::new(location);
    let block = Block::new(&[(i64_tensor, location)]);
    let x = block.argument(0).unwrap().into();
    block.append_operation(core::abs(&context, i64_tensor, x, location).into());
    block.append_operation(func::r#return(&[], location));
    let region = Region::new();
    region.append_block(block);
    module.body().append_operation(func::func(
        &context,
        melior::ir::attribute::StringAttribute::new(&context, "f"),
        TypeAttribute::new(FunctionType::new(&context, &[i64_tensor], &[]).into()),
        region,
        &[],
        location,
    ));
    assert!(!module.as_operation().verify());
}
