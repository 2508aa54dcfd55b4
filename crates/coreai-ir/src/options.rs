//! Pass options, declared once: [`pass_options!`] turns one declaration per
//! option (its textual name, field, type, default as text, help) into the
//! options struct, its `Default` (the default text, parsed), the
//! [`PassOption`] list that `--list-passes` and the docs print, and the
//! setter `configure` calls. One syntax for every value
//! ([`OptionValue`]): booleans are `true`/`1` or `false`/`0`, lists are
//! comma-separated (blanks around items ignored, empty items dropped), and
//! an empty optional value is none.
//!
//! ```
//! coreai_ir::pass_options! {
//!     /// The options of my-pass.
//!     pub struct MyOptions {
//!         "remarks" => remarks: bool = "false", "print one line per rewrite";
//!         "ops" => ops: Vec<String> = "coreai.abs", "the ops to rewrite";
//!     }
//! }
//! let mut o = MyOptions::default();
//! assert!(!o.remarks && o.ops == ["coreai.abs"]);
//! o.set("remarks", "1").unwrap();
//! assert!(o.remarks);
//! assert_eq!(MyOptions::OPTIONS[1].name, "ops");
//! ```

/// How an option's text becomes its value.
pub trait OptionValue: Sized {
    fn parse_option(text: &str) -> Result<Self, String>;
}

impl OptionValue for bool {
    fn parse_option(text: &str) -> Result<Self, String> {
        match text.trim() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            other => Err(format!("'{other}' is not true or false")),
        }
    }
}

macro_rules! numeric_option {
    ($($t:ty => $what:literal),*) => {$(
        impl OptionValue for $t {
            fn parse_option(text: &str) -> Result<Self, String> {
                text.trim()
                    .parse()
                    .map_err(|_| format!("'{}' is not {}", text.trim(), $what))
            }
        }
    )*};
}
numeric_option!(usize => "a count", u64 => "a count", i64 => "an integer", f64 => "a number");

impl OptionValue for String {
    fn parse_option(text: &str) -> Result<Self, String> {
        Ok(text.trim().to_string())
    }
}

/// A comma-separated list.
impl<T: OptionValue> OptionValue for Vec<T> {
    fn parse_option(text: &str) -> Result<Self, String> {
        list_items(text).map(T::parse_option).collect()
    }
}

/// Empty: none.
impl<T: OptionValue> OptionValue for Option<T> {
    fn parse_option(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            Ok(None)
        } else {
            T::parse_option(text).map(Some)
        }
    }
}

/// The items of a comma-separated list: trimmed, empty ones dropped.
pub fn list_items(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// Declares a pass's options once; see the [module docs](self). Each line
/// is `"name" => field: Type = "default", "help"` with an optional
/// `, parse = function` (a `fn(&str) -> Result<Type, String>`) where the
/// type's [`OptionValue`] syntax is not the option's.
#[macro_export]
macro_rules! pass_options {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $option:literal => $field:ident : $ty:ty = $default:literal, $help:literal
                $(, parse = $parse:expr)? ;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        $vis struct $name {
            $(pub $field: $ty,)*
        }

        impl $name {
            /// The options as `--list-passes` and the docs show them.
            pub const OPTIONS: &'static [$crate::pass::PassOption] = &[
                $($crate::pass::PassOption { name: $option, help: $help, default: $default },)*
            ];

            /// Sets the option named `name` from its text.
            pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
                match name {
                    $($option => {
                        self.$field = $crate::pass_options!(@parse value $(, $parse)?)?;
                    })*
                    _ => return Err(format!("no option '{name}'")),
                }
                Ok(())
            }
        }

        impl Default for $name {
            /// Each option's default text, parsed.
            fn default() -> Self {
                Self {
                    $($field: $crate::pass_options!(@parse $default $(, $parse)?)
                        .expect(concat!("the default of option '", $option, "' parses")),)*
                }
            }
        }
    };
    (@parse $value:expr) => {
        $crate::options::OptionValue::parse_option($value)
    };
    (@parse $value:expr, $parse:expr) => {
        ($parse)($value)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::pass_options! {
        struct Sample {
            "flag" => flag: bool = "false", "a flag";
            "count" => count: usize = "3", "a count";
            "names" => names: Vec<String> = " a, ,b ", "a list";
            "file" => file: Option<String> = "", "a file";
            "even" => even: u64 = "2", "an even number", parse = |t: &str| {
                u64::parse_option(t).and_then(|n| if n % 2 == 0 { Ok(n) } else { Err(format!("{n} is odd")) })
            };
        }
    }

    #[test]
    fn defaults_are_the_parsed_default_texts() {
        let s = Sample::default();
        assert!(!s.flag);
        assert_eq!(s.count, 3);
        assert_eq!(s.names, ["a", "b"]);
        assert_eq!(s.file, None);
        assert_eq!(s.even, 2);
        assert_eq!(Sample::OPTIONS.len(), 5);
        assert_eq!(Sample::OPTIONS[2].default, " a, ,b ");
    }

    #[test]
    fn one_syntax_for_every_value() {
        let mut s = Sample::default();
        s.set("flag", "1").unwrap();
        assert!(s.flag);
        assert_eq!(
            s.set("flag", "yes").unwrap_err(),
            "'yes' is not true or false"
        );
        assert_eq!(s.set("count", "x").unwrap_err(), "'x' is not a count");
        s.set("file", "m.npz").unwrap();
        assert_eq!(s.file.as_deref(), Some("m.npz"));
        assert_eq!(s.set("even", "3").unwrap_err(), "3 is odd");
        assert!(s.set("nope", "1").is_err());
    }
}
