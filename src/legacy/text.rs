//! Lenient scalar readers shared by the legacy shapes.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};

/// Drops a UTF-8 byte-order mark, which some legacy exporters write.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// The visitor methods of the lenient readers for everything that is not text (a float, a
/// bool, null, an array, an object): `None`, with the value consumed. Both [`Text`]'s and
/// [`TextRef`]'s visitors use them, so the two accept and ignore exactly the same inputs.
macro_rules! skips_what_is_not_text {
    () => {
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }

        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    };
}

/// A string field that ignores values of other types instead of failing the whole response.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Text(pub Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor { numbers: false })
            .map(Text)
    }
}

/// [`Text`] borrowed from the input where the string holds no escape: what a reader that parses
/// slices keeps without an allocation. It accepts and ignores exactly what [`Text`] does.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TextRef<'a>(pub Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for TextRef<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Borrowing;
        impl<'de> Visitor<'de> for Borrowing {
            type Value = Option<Cow<'de, str>>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Some(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Some(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Some(Cow::Owned(v)))
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }

            skips_what_is_not_text!();
        }
        d.deserialize_any(Borrowing).map(TextRef)
    }
}

/// An identifier: a string, or an integer written as one.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Ident(pub Option<String>);

impl<'de> Deserialize<'de> for Ident {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor { numbers: true })
            .map(Ident)
    }
}

struct ScalarVisitor {
    numbers: bool,
}

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(self.numbers.then(|| v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(self.numbers.then(|| v.to_string()))
    }

    skips_what_is_not_text!();
}

/// A record that must be a JSON object. serde's derived structs also accept an array of field
/// values in declaration order, so `[["d1", "text"]]` would read as a hit with id `d1` and content
/// `text`: a guess about a shape no legacy tool writes. Wrapping a record in `Object` refuses it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = T;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(ObjectVisitor(std::marker::PhantomData))
            .map(Object)
    }
}

/// A heading path: a string, or an array of strings joined with ` > `.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Crumbs(pub Option<String>);

impl<'de> Deserialize<'de> for Crumbs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CrumbVisitor;
        impl<'de> Visitor<'de> for CrumbVisitor {
            type Value = Option<String>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of strings")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts: Vec<String> = Vec::new();
                while let Some(Text(part)) = seq.next_element::<Text>()? {
                    if let Some(part) = part.filter(|p| !p.trim().is_empty()) {
                        parts.push(part);
                    }
                }
                Ok((!parts.is_empty()).then(|| parts.join(" > ")))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Some(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Some(v))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                ScalarVisitor { numbers: false }.visit_map(map)
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
        }
        d.deserialize_any(CrumbVisitor).map(Crumbs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_ignores_other_types() {
        let t: Vec<Text> = serde_json::from_str(r#"["a", 1, null, true, [1], {"x": 1}]"#).unwrap();
        let got: Vec<_> = t.into_iter().map(|t| t.0).collect();
        assert_eq!(
            got,
            vec![Some("a".to_owned()), None, None, None, None, None]
        );
    }

    #[test]
    fn ident_accepts_integers() {
        let t: Vec<Ident> = serde_json::from_str(r#"["doc-1", 42, 1.5]"#).unwrap();
        let got: Vec<_> = t.into_iter().map(|t| t.0).collect();
        assert_eq!(
            got,
            vec![Some("doc-1".to_owned()), Some("42".to_owned()), None]
        );
    }

    #[test]
    fn crumbs_join_arrays() {
        let t: Vec<Crumbs> =
            serde_json::from_str(r#"["A > B", ["Kafka", "运维", 3, " "], [], 7]"#).unwrap();
        let got: Vec<_> = t.into_iter().map(|t| t.0).collect();
        assert_eq!(
            got,
            vec![
                Some("A > B".to_owned()),
                Some("Kafka > 运维".to_owned()),
                None,
                None
            ]
        );
    }

    #[test]
    fn records_must_be_objects() {
        #[derive(Deserialize, Debug, PartialEq)]
        struct Hit {
            #[serde(default)]
            id: Text,
        }
        let ok: Object<Hit> = serde_json::from_str(r#"{"id":"d1","other":1}"#).unwrap();
        assert_eq!(ok.0.id.0.as_deref(), Some("d1"));
        // The derived struct alone reads an array positionally; the wrapper does not.
        assert!(serde_json::from_str::<Hit>(r#"["d1"]"#).is_ok());
        for doc in [r#"["d1"]"#, "[]", "1", r#""d1""#, "null"] {
            assert!(serde_json::from_str::<Object<Hit>>(doc).is_err(), "{doc}");
        }
        let none: Option<Object<Hit>> = serde_json::from_str("null").unwrap();
        assert!(none.is_none());
    }

    #[test]
    fn bom_is_stripped_once() {
        assert_eq!(strip_bom(b"\xEF\xBB\xBF{}"), b"{}");
        assert_eq!(strip_bom(b"{}"), b"{}");
    }
}
