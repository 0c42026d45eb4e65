//! A JSON value as YAML, the way gnostic keeps a vendor extension's value (`yaml.Marshal` of
//! the parsed node, go.yaml.in/yaml/v3): block style with two-space indentation, strings
//! plain, single-quoted or double-quoted as yaml.v3 chooses.

use super::ordered::Node;

/// The YAML document text of `value` (ending in a newline).
pub fn to_yaml(value: &Node) -> String {
    let mut out = String::new();
    block(value, 0, &mut out);
    out
}

/// Writes `value` as a block at `indent` (the caller has written nothing of its line yet
/// when it is a collection, `key: ` or `- ` when it is a scalar).
fn block(value: &Node, indent: usize, out: &mut String) {
    match value {
        Node::Object(members) if !members.is_empty() => {
            for (i, (key, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(&" ".repeat(indent));
                }
                out.push_str(&scalar_text(key));
                out.push(':');
                nested(member, indent, out);
            }
        }
        Node::Array(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(&" ".repeat(indent));
                }
                out.push_str("- ");
                match item {
                    Node::Object(m) if !m.is_empty() => block(item, indent + 2, out),
                    Node::Array(a) if !a.is_empty() => block(item, indent + 2, out),
                    _ => {
                        out.push_str(&scalar(item));
                        out.push('\n');
                    }
                }
            }
        }
        _ => {
            out.push_str(&scalar(value));
            out.push('\n');
        }
    }
}

/// A mapping value after its `key:`.
fn nested(value: &Node, indent: usize, out: &mut String) {
    match value {
        Node::Object(m) if !m.is_empty() => {
            out.push('\n');
            out.push_str(&" ".repeat(indent + 2));
            block(value, indent + 2, out);
        }
        Node::Array(a) if !a.is_empty() => {
            out.push('\n');
            out.push_str(&" ".repeat(indent + 2));
            block(value, indent + 2, out);
        }
        _ => {
            out.push(' ');
            out.push_str(&scalar(value));
            out.push('\n');
        }
    }
}

/// A scalar (or an empty collection) in flow form.
fn scalar(value: &Node) -> String {
    match value {
        Node::Null => "null".to_owned(),
        Node::Bool(b) => b.to_string(),
        Node::Number(n) => n.to_string(),
        Node::String(text) => scalar_text(text),
        Node::Array(_) => "[]".to_owned(),
        Node::Object(_) => "{}".to_owned(),
    }
}

/// A string as yaml.v3 writes one: double-quoted when unquoted YAML would read another type
/// (encode.go `stringv`), single-quoted when the emitter cannot write it plain (an
/// indicator first, `: `, ` #`, surrounding spaces), else plain.
fn scalar_text(text: &str) -> String {
    if resolves_to_other_type(text) || text.chars().any(char::is_control) {
        serde_json::to_string(text).unwrap_or_default()
    } else if plain_is_allowed(text) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "''"))
    }
}

/// Whether unquoted YAML reads `text` as a null, bool, number or merge key.
fn resolves_to_other_type(text: &str) -> bool {
    let reserved = [
        "", "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~", "yes",
        "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "<<",
    ];
    reserved.contains(&text) || text.parse::<f64>().is_ok() || looks_numeric(text)
}

/// Whether the emitter writes `text` plain.
fn plain_is_allowed(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) || first.is_whitespace() {
        return false;
    }
    !(text.ends_with(char::is_whitespace)
        || text.ends_with(':')
        || text.contains(": ")
        || text.contains(" #"))
}

/// YAML 1.1 numbers `parse` does not take: `0x1F`, `0o17`, `.inf`, `1_000`.
fn looks_numeric(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.starts_with("0x")
        || lower.starts_with("0o")
        || [".inf", "-.inf", "+.inf", ".nan"].contains(&lower.as_str())
        || (text.contains('_') && text.replace('_', "").parse::<f64>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_values_are_written_as_gnostic_keeps_them() {
        let gvk: Node =
            serde_json::from_str(r#"{"group":"","kind":"ComponentStatus","version":"v1"}"#)
                .unwrap();
        assert_eq!(
            to_yaml(&gvk),
            "group: \"\"\nkind: ComponentStatus\nversion: v1\n"
        );
        let unions: Node = serde_json::from_str(
            r#"[{"discriminator":"type","fields-to-discriminateBy":{"localhostProfile":"LocalhostProfile"}}]"#,
        )
        .unwrap();
        assert_eq!(
            to_yaml(&unions),
            "- discriminator: type\n  fields-to-discriminateBy:\n    localhostProfile: LocalhostProfile\n"
        );
        assert_eq!(to_yaml(&Node::str("list")), "list\n");
        assert_eq!(to_yaml(&Node::Bool(true)), "true\n");
        assert_eq!(to_yaml(&Node::str("*")), "'*'\n");
        assert_eq!(to_yaml(&Node::str("1")), "\"1\"\n");
    }
}
