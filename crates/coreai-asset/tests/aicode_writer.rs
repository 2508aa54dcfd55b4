//! The bytecode writer against `utils/aicode/emit_add.py`: the same entries
//! interned in the same order give the same 326 bytes, which coreai-core's
//! runtime loads and runs (test/e2e/test_aicode_writer.py runs this file's
//! twin, written by `Program`, through it).

use coreai_asset::aicode::{ops, Elt, Graph, Program, TensorType};
use coreai_asset::bytecode::writer::{svarint, varint, Op, Region, Writer};

/// `python3 utils/aicode/emit_add.py hand.mlirb`.
const EMIT_ADD: &str = "\
4d4cef520d68616e642d7772697474656e000119031f07030509010923272b2f033b2907012907131b17131f0b0b0b0b\
130f0b130f130b130f0f010707171b029f5d3d0103033f03010101015105010101050301000541016819a02603050905\
0b010307130903130b0315030b130903190b031b0b05171d030d130903210b03230b03250d0505090d013d0303050303\
045105015007010704410301050350070307042d03070b0507070707000506070303050103070407030500f519272325\
290f090519050b03052d00006d61696e0078006169636f64652e6e616d65007900616464006169636f64650073657269\
616c697a6174696f6e2e61737365740064617461666c6f772e67726170685f7631007072696d69746976652e6164645f\
76310064617461666c6f772e6f75747075745f763100081d05050117131f01090f090d091127";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn v(values: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in values {
        varint(&mut out, x);
    }
    out
}

#[test]
fn the_writer_reproduces_emit_add_byte_for_byte() {
    let mut w = Writer::new();
    let d = w.dialect("aicode", Some(v(&[2])));
    let f32_ = w.type_(d, v(&[6]));
    let mut t23 = v(&[2, 2]);
    svarint(&mut t23, 2);
    svarint(&mut t23, 3);
    t23.extend(v(&[f32_]));
    let t23 = w.type_(d, t23);
    let fn_ = w.type_(d, v(&[30, 1, t23, 2, t23, t23]));
    let unit = w.attr(d, v(&[46]));
    let (dash, empty_s) = (w.string("-"), w.string(""));
    let file = w.attr(d, v(&[30, dash, empty_s, empty_s]));
    let src = w.attr(d, v(&[31, file, 0, 0, 0, 0]));
    let loc = w.attr(d, v(&[40, src, unit, 0, 0]));
    let false1 = w.attr(d, [v(&[2, 1]), vec![1, 0]].concat());
    let mut version = v(&[2, 32]);
    version.push(1);
    svarint(&mut version, 20250827);
    let version = w.attr(d, version);
    let main = w.string("main");
    let name_main = w.attr(d, v(&[1, main]));
    let ftype = w.attr(d, v(&[4, fn_]));
    let empty = w.attr(d, v(&[5, 0]));
    let io = |w: &mut Writer, n: &str| {
        let s = w.string(n);
        let s = w.attr(d, v(&[1, s]));
        let key = w.string("aicode.name");
        let o = w.attr(d, v(&[9, key, 1, s]));
        w.attr(d, v(&[5, 1, o]))
    };
    let (x, y) = (io(&mut w, "x"), io(&mut w, "y"));
    let arg_attrs = w.attr(d, v(&[5, 2, x, y]));
    let add = io(&mut w, "add");
    let res_attrs = w.attr(d, v(&[5, 1, add]));

    let op = |name: &str, properties, results, operands, regions| Op {
        name: name.into(),
        loc,
        properties,
        results,
        operands,
        regions,
    };
    let body = Region {
        args: vec![(t23, loc), (t23, loc)],
        ops: vec![
            op(
                "aicode.primitive.add_v1",
                None,
                vec![t23],
                vec![0, 1],
                vec![],
            ),
            op("aicode.dataflow.output_v1", None, vec![], vec![2], vec![]),
        ],
        isolated: true,
    };
    let graph_props = v(&[
        arg_attrs, 0, false1, ftype, false1, name_main, false1, empty, res_attrs,
    ]);
    let graph = op(
        "aicode.dataflow.graph_v1",
        Some(graph_props),
        vec![],
        vec![],
        vec![body],
    );
    let asset = op(
        "aicode.serialization.asset",
        Some(v(&[0, (version << 1) | 1])),
        vec![],
        vec![],
        vec![Region {
            args: vec![],
            ops: vec![graph],
            isolated: true,
        }],
    );
    assert_eq!(w.finish("hand-written", &asset), hex(EMIT_ADD));
}

#[test]
fn a_program_with_a_composite_and_a_blob() {
    let t = TensorType::new(&[2, 3], Elt::F32);
    let bias = TensorType::new(&[3], Elt::F32);
    let mut p = Program::new();
    let mut body = p.body(std::slice::from_ref(&t));
    let blob: Vec<u8> = [1.0f32, 2.0, 3.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let w = p.dense_resource("bias", 16, blob.clone());
    let c = ops::constant_attr(&mut p, &mut body, w, &bias);
    let x = body.arg(0);
    let r = ops::broadcasting(&mut p, &mut body, "add", "add", &[x, c], &t).unwrap();
    ops::output(&mut p, &mut body, &[r]);
    let spec = Graph {
        name: "main".into(),
        inputs: vec![t.clone()],
        results: vec![t],
        ..Graph::default()
    };
    p.graph(&spec, body);
    assert_eq!(p.version(), 20260204); // reshape_v2 of the bias to [1, 3]
    let bytes = p.finish();
    // The blob is 16-byte aligned in the file.
    let at = bytes
        .windows(blob.len())
        .position(|w| w == blob.as_slice())
        .unwrap();
    assert_eq!(at % 16, 0);
    let summary = coreai_asset::bytecode::summarize(&bytes).unwrap();
    assert_eq!(summary.version, 6);
    assert_eq!(
        summary.dialects,
        vec![("aicode".to_string(), Some(vec![0x05]))]
    );
}
