//! The library's compile choices as command-line values: each wraps the
//! library's enum and takes its name (and, for stages, its help) from it,
//! so the list of stages, targets and precisions exists once.

use clap::{builder::PossibleValue, ValueEnum};
use coreai::{
    backend::Format,
    compile::{Io, Precision, Stage, Target},
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageArg(pub Stage);

impl ValueEnum for StageArg {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [StageArg; 5] = [
            StageArg(Stage::ALL[0]),
            StageArg(Stage::ALL[1]),
            StageArg(Stage::ALL[2]),
            StageArg(Stage::ALL[3]),
            StageArg(Stage::ALL[4]),
        ];
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).help(self.0.help()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetArg(pub Target);

impl TargetArg {
    pub const CPU: TargetArg = TargetArg(Target::Cpu);
}

impl ValueEnum for TargetArg {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [TargetArg; 3] = [
            TargetArg(Target::ALL[0]),
            TargetArg(Target::ALL[1]),
            TargetArg(Target::ALL[2]),
        ];
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrecisionArg(pub Precision);

impl ValueEnum for PrecisionArg {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [PrecisionArg; 2] = [
            PrecisionArg(Precision::ALL[0]),
            PrecisionArg(Precision::ALL[1]),
        ];
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoArg(pub Io);

impl ValueEnum for IoArg {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [IoArg; 2] = [IoArg(Io::ALL[0]), IoArg(Io::ALL[1])];
        &ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatArg(pub Format);

impl FormatArg {
    pub const AICODE: FormatArg = FormatArg(Format::Aicode);
}

impl ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        &[FormatArg(Format::Coreai), FormatArg(Format::Aicode)]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(match self.0 {
            Format::Coreai => "coreai",
            Format::Aicode => "aicode",
        }))
    }
}
