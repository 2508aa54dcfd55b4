//! Apple's IOSurface configuration for embedding tables (conversion guide
//! §7.7), in the form Apple's own lowering emits it: the `(V, 1, D)` table
//! is passed to a private `noinline` graph whose parameter carries
//! `#coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1], interleave:
//! [8x1x1]>`, and the graph gathers the rows:
//!
//! ```text
//! %e = gather_nd %table at %idx : (V×D, …×1) → …×D          (%table a constant)
//!   → coreai.graph private noinline @embedding_gather(
//!         %t : V×1×D (encoded) {coreai.name = "embedding_table"},
//!         %i : …×1 {coreai.name = "input_ids"}) -> …×1×D {
//!       %u = coreaix.copy_discarding_constraints(%t)
//!       %g = coreai.gather_nd %u at %i
//!       coreai.output %g }
//!     %c = coreaix.copy_with_constraints(reshape(%table) : V×1×D)
//!     %e = reshape(coreai.invoke @embedding_gather(%c, %idx) : …×1×D) : …×D
//! ```
//!
//! The copies are identities and the rows are those of the inline
//! `embedding-v1d` form, bit for bit. The values are Apple's, copied
//! verbatim: interleave 8 over the rows, so only tables whose row count is
//! a multiple of 8 qualify (coreai-core refuses the encoding otherwise);
//! the others take `embedding-v1d`. No configuration is invented.

use super::layout::embedding_rows;
use coreai_ir::emit::{composite_graph, graph_body, reshape};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::{coreai, coreaix};
use coreai_ir::schema::element_type;
use melior::ir::{BlockLike, Value, ValueLike};

/// Apple's embedding-table encoding (guide §7.7), for a rank-3 `(V, 1, D)`
/// table.
pub const EMBEDDING_CONSTRAINTS: &str =
    "#coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1], interleave: [8x1x1]>";

/// The row interleave of [`EMBEDDING_CONSTRAINTS`]: it must divide V.
const ROW_INTERLEAVE: i64 = 8;

/// How the decline of an embedding whose row count 8 does not divide
/// starts (the one decline `remarks` prints: the table takes
/// `embedding-v1d` instead).
pub const ROWS_NOT_INTERLEAVED: &str = "the table has ";

pub fn embedding_iosurface<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let rows = embedding_rows(cx)?;
    if rows.vocab % ROW_INTERLEAVE != 0 {
        return Err(format!(
            "{ROWS_NOT_INTERLEAVED}{} rows, not a multiple of {ROW_INTERLEAVE} (the interleave of Apple's embedding configuration must divide them)",
            rows.vocab
        ));
    }
    let (anchor, module_block) = coreai_ir::symbols::top_level(cx.op().to_raw())?;
    let table = rows.table_v1d(cx)?;
    let plain = table.r#type();
    let shape = [rows.vocab, 1, rows.hidden];
    let encoding = cx.parse_attribute(EMBEDDING_CONSTRAINTS)?;
    let shape = shape.map(|d| d as u64);
    let encoded: melior::ir::Type =
        melior::ir::r#type::RankedTensorType::new(&shape, element_type(table)?, Some(encoding))
            .into();
    let name = coreai_ir::symbols::unique_name(module_block, "embedding_gather");
    let inputs = [
        ("embedding_table", encoded),
        ("input_ids", rows.idx.r#type()),
    ];
    let graph = composite_graph(cx, &name, &inputs, rows.gathered, None, None)?;
    coreai_ir::raw::insert_before(anchor, graph);
    if let Err(reason) = fill_body(cx, graph, plain, rows.gathered) {
        coreai_ir::raw::erase(graph);
        return Err(reason);
    }
    let copied = cx.build_value(coreaix::COPY_WITH_CONSTRAINTS, &[table], encoded, &[])?;
    let callee = cx.parse_attribute(&format!("#param.constant<@{name}> : !param.symbol"))?;
    let gathered = cx.build_value(
        coreai::INVOKE,
        &[copied, rows.idx],
        rows.gathered,
        &[("callee", callee)],
    )?;
    Ok(vec![reshape(cx, gathered, &rows.result)?])
}

/// The graph's body: the table's constraints discarded, the rows gathered.
fn fill_body<'c>(
    cx: &LoweringCx<'c, '_>,
    graph: mlir_sys::MlirOperation,
    plain: melior::ir::Type<'c>,
    gathered: melior::ir::Type<'c>,
) -> Result<(), Decline> {
    let (block, output, at_output) = graph_body(cx, graph)?;
    let table: Value = block.argument(0).map_err(|e| e.to_string())?.into();
    let idx: Value = block.argument(1).map_err(|e| e.to_string())?.into();
    let table =
        at_output.build_value(coreaix::COPY_DISCARDING_CONSTRAINTS, &[table], plain, &[])?;
    let rows = at_output.build_value(coreai::GATHER_ND, &[table, idx], gathered, &[])?;
    coreai_ir::raw::set_operand(output, 0, rows.to_raw());
    Ok(())
}
