//! `metadata.json`: the keys coreai-core 1.0.0b3's `AIModelAssetMetadata`
//! reads and writes, in its layout.
//!
//! coreai-core writes `creationDate` (`20261201T112108Z`, UTC), `producer`,
//! `assetVersion` (`"2.0"`) and, when set, `author`, `license`,
//! `description` and `creatorDefinedMetadata` (any JSON), pretty-printed with
//! two-space indents and `"key" : value`, no trailing newline. Its key order
//! is its hash map's and changes from run to run; this writer uses one fixed
//! order so that equal inputs give equal files.

use serde_json::{Map, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// The asset format version coreai-core writes.
pub const ASSET_VERSION: &str = "2.0";

/// The contents of `metadata.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Metadata {
    /// `YYYYMMDDTHHMMSSZ`, UTC.
    pub creation_date: String,
    pub producer: String,
    pub asset_version: String,
    pub author: Option<String>,
    pub license: Option<String>,
    pub description: Option<String>,
    /// `creatorDefinedMetadata`: the user's own keys (sorted on output).
    pub custom: Map<String, Value>,
}

/// Why `metadata.json` was rejected.
#[derive(Debug, thiserror::Error)]
pub enum MetadataError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a JSON object")]
    NotObject,
    #[error("key '{0}' is missing")]
    Missing(&'static str),
    #[error("key '{0}' is not a string")]
    NotString(String),
    #[error("'creatorDefinedMetadata' is not an object")]
    CustomNotObject,
    #[error("assetVersion is '{0}', this reader knows '{ASSET_VERSION}'")]
    Version(String),
}

impl Metadata {
    /// Metadata stamped now (or at `SOURCE_DATE_EPOCH` when the environment
    /// sets it, for reproducible builds) by `producer`.
    pub fn new(producer: &str) -> Self {
        let seconds = std::env::var("SOURCE_DATE_EPOCH")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
            });
        Self {
            creation_date: creation_date(seconds),
            producer: producer.to_string(),
            asset_version: ASSET_VERSION.to_string(),
            author: None,
            license: None,
            description: None,
            custom: Map::new(),
        }
    }

    /// Sets `key`: `author`, `license` and `description` are coreai-core's
    /// own fields; any other key goes to `creatorDefinedMetadata` as a string.
    pub fn set(&mut self, key: &str, value: &str) {
        let value = value.to_string();
        match key {
            "author" => self.author = Some(value),
            "license" => self.license = Some(value),
            "description" => self.description = Some(value),
            _ => {
                self.custom.insert(key.to_string(), Value::String(value));
            }
        }
    }

    /// The file's bytes, in coreai-core's layout.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = String::from("{\n");
        let mut fields: Vec<(&str, String)> = vec![
            ("creationDate", json_string(&self.creation_date)),
            ("producer", json_string(&self.producer)),
            ("assetVersion", json_string(&self.asset_version)),
        ];
        for (key, value) in [
            ("author", &self.author),
            ("license", &self.license),
            ("description", &self.description),
        ] {
            if let Some(v) = value {
                fields.push((key, json_string(v)));
            }
        }
        if !self.custom.is_empty() {
            let value = Value::Object(self.custom.clone());
            fields.push(("creatorDefinedMetadata", pretty(&value, 1)));
        }
        let last = fields.len() - 1;
        for (i, (key, value)) in fields.iter().enumerate() {
            let comma = if i == last { "" } else { "," };
            out.push_str(&format!("  {} : {value}{comma}\n", json_string(key)));
        }
        out.push('}');
        out.into_bytes()
    }

    /// Parses `metadata.json` as coreai-core writes it (any key order).
    pub fn parse(bytes: &[u8]) -> Result<Self, MetadataError> {
        let value: Value = serde_json::from_slice(bytes)?;
        let object = value.as_object().ok_or(MetadataError::NotObject)?;
        let string = |key: &'static str| -> Result<Option<String>, MetadataError> {
            match object.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(MetadataError::NotString(key.to_string())),
            }
        };
        let required = |key: &'static str| string(key)?.ok_or(MetadataError::Missing(key));
        let asset_version = required("assetVersion")?;
        if asset_version != ASSET_VERSION {
            return Err(MetadataError::Version(asset_version));
        }
        let custom = match object.get("creatorDefinedMetadata") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(MetadataError::CustomNotObject),
        };
        Ok(Self {
            creation_date: required("creationDate")?,
            producer: required("producer")?,
            asset_version,
            author: string("author")?,
            license: string("license")?,
            description: string("description")?,
            custom,
        })
    }
}

fn json_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// `value` pretty-printed in coreai-core's style, nested at `depth`.
fn pretty(value: &Value, depth: usize) -> String {
    let indent = "  ".repeat(depth + 1);
    let close = "  ".repeat(depth);
    match value {
        Value::Object(map) if !map.is_empty() => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{indent}{} : {}", json_string(k), pretty(v, depth + 1)))
                .collect();
            format!("{{\n{}\n{close}}}", items.join(",\n"))
        }
        Value::Array(items) if !items.is_empty() => {
            let items: Vec<String> = items
                .iter()
                .map(|v| format!("{indent}{}", pretty(v, depth + 1)))
                .collect();
            format!("[\n{}\n{close}]", items.join(",\n"))
        }
        other => other.to_string(),
    }
}

/// Seconds since the Unix epoch as `YYYYMMDDTHHMMSSZ` (UTC), the proleptic
/// Gregorian calendar (days-to-civil, H. Hinnant's algorithm).
pub fn creation_date(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let rem = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_at_known_instants() {
        assert_eq!(creation_date(0), "19700101T000000Z");
        // 2000-02-29 (a leap day in a century leap year) 23:59:59.
        assert_eq!(creation_date(951_868_799), "20000229T235959Z");
        // coreai-core's creation_date 1796130635.0 was stamped 20261201T131035Z.
        assert_eq!(creation_date(1_796_130_635), "20261201T131035Z");
    }

    #[test]
    fn layout_matches_coreai_core() {
        let mut m = Metadata::new("coreai 0.1.0");
        m.creation_date = "20261201T130924Z".into();
        assert_eq!(
            String::from_utf8(m.to_json()).unwrap(),
            "{\n  \"creationDate\" : \"20261201T130924Z\",\n  \"producer\" : \"coreai 0.1.0\",\n  \"assetVersion\" : \"2.0\"\n}"
        );
        m.set("author", "Ann");
        m.set("version", "1.2");
        let text = String::from_utf8(m.to_json()).unwrap();
        assert!(text.contains("  \"author\" : \"Ann\",\n"), "{text}");
        assert!(
            text.ends_with("  \"creatorDefinedMetadata\" : {\n    \"version\" : \"1.2\"\n  }\n}"),
            "{text}"
        );
        assert_eq!(Metadata::parse(text.as_bytes()).unwrap(), m);
    }

    #[test]
    fn rejects_what_coreai_core_would_not_have_written() {
        assert!(matches!(
            Metadata::parse(b"[1]"),
            Err(MetadataError::NotObject)
        ));
        assert!(matches!(
            Metadata::parse(br#"{"creationDate":"x","producer":"p"}"#),
            Err(MetadataError::Missing("assetVersion"))
        ));
        assert!(matches!(
            Metadata::parse(br#"{"creationDate":"x","producer":"p","assetVersion":"3.0"}"#),
            Err(MetadataError::Version(_))
        ));
        assert!(matches!(
            Metadata::parse(b"{\"creat"),
            Err(MetadataError::Json(_))
        ));
    }
}
