//! The typed builders generated from the coreai and coreaix ODS build ops
//! that verify and print in the form coreai-core prints.

use coreai::context::create_context;
use coreai::dialects::coreai as core;
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
