//! The CEL environment kube-apiserver evaluates CRD rules in, on the `cel` crate: CEL's
//! standard library and macros (`has`, `all`, `exists`, `exists_one`, `map`, `filter`), cel-go's
//! strings extension (`lowerAscii`, `split`, `join`, `indexOf` on strings, …), and the
//! Kubernetes libraries rules use most (`k8s.io/apiserver/pkg/cel/library` v0.37.2): lists
//! (`isSorted`, `sum`, `min`, `max`), regex (`find`, `findAll`), `url` (`isURL`, `getScheme`,
//! `getHost`, `getHostname`, `getPort`, `getEscapedPath`, `getQuery`) and `quantity`
//! (`isQuantity`, `compareTo`, `isLessThan`, `isGreaterThan`, `asInteger`,
//! `asApproximateFloat`, `sign`, `isInteger`, `add`, `sub`). Values are made from the JSON by
//! the schema, as `UnstructuredToVal` makes them: an `integer` is an int, a `number` a double,
//! and at the root, `metadata` shows only `name` and `generateName`.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use cel::extractors::This;
use cel::objects::{Key, Map, Opaque};
use cel::{Context, Env, ExecutionError, Value as Cel};
use serde_json::Value;

use super::node::Node;

/// The environment every rule is compiled and run in, built once.
pub static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    // The strings extension's overloads are fixed; it cannot fail on a fresh environment.
    let _ = env.add_extension(cel::extensions::strings);
    Arc::new(env)
});

/// A context with `self` (and `oldSelf`) bound and the Kubernetes functions added.
pub fn context<'v>(this: &Cel, old: Option<&Cel>) -> Context<'v, 'v> {
    let mut context = Context::with_env(Arc::clone(&ENV));
    context.add_variable_from_value("self", this.clone());
    if let Some(old) = old {
        context.add_variable_from_value("oldSelf", old.clone());
    }
    add_functions(&mut context);
    context
}

/// An evaluation error as cel-go words the common ones.
pub fn error_text(error: &ExecutionError) -> String {
    match error {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        other => other.to_string(),
    }
}

/// `value` as the CEL value `node` types it (`root`: the object's root schema).
pub fn to_cel(node: &Node, value: &Value, root: bool) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::String(s) => Cel::String(Arc::new(s.clone())),
        Value::Number(n) => number(node, n),
        Value::Array(items) => {
            let item = node.items.as_deref();
            Cel::List(Arc::new(
                items
                    .iter()
                    .map(|v| item.map_or_else(|| untyped(v), |s| to_cel(s, v, false)))
                    .collect(),
            ))
        }
        Value::Object(members) => {
            let mut map = HashMap::with_capacity(members.len());
            for (key, member) in members {
                let converted = if root && key == "metadata" {
                    root_metadata(member)
                } else {
                    match node.child(key) {
                        Some(schema) => to_cel(schema, member, false),
                        None => untyped(member),
                    }
                };
                map.insert(Key::String(Arc::new(key.clone())), converted);
            }
            Cel::Map(Map { map: Arc::new(map) })
        }
    }
}

/// A number as its schema types it: `number` is a double, anything else an int when whole.
fn number(node: &Node, n: &serde_json::Number) -> Cel {
    let is_double = node.types.as_slice() == ["number"];
    match n.as_i64() {
        Some(i) if !is_double => Cel::Int(i),
        _ => Cel::Float(n.as_f64().unwrap_or_default()),
    }
}

/// A value no schema describes (under `x-kubernetes-preserve-unknown-fields`).
fn untyped(value: &Value) -> Cel {
    static ANY: LazyLock<Node> = LazyLock::new(|| Node::compile(&Value::Null));
    to_cel(&ANY, value, false)
}

/// The root's `metadata` as rules see it: `name` and `generateName` only.
fn root_metadata(meta: &Value) -> Cel {
    let mut map = HashMap::new();
    for key in ["name", "generateName"] {
        if let Some(Value::String(text)) = meta.get(key) {
            map.insert(
                Key::String(Arc::new(key.to_owned())),
                Cel::String(Arc::new(text.clone())),
            );
        }
    }
    Cel::Map(Map { map: Arc::new(map) })
}

type Result<T> = std::result::Result<T, ExecutionError>;

fn fail(function: &str, message: impl ToString) -> ExecutionError {
    ExecutionError::function_error(function, message)
}

/// Adds the Kubernetes library functions to `context`.
fn add_functions(context: &mut Context<'_, '_>) {
    let _ = context.add_function("isSorted", is_sorted);
    let _ = context.add_function("sum", sum);
    let _ = context.add_function("min", |This(list): This<Cel>| extreme(list, true));
    let _ = context.add_function("max", |This(list): This<Cel>| extreme(list, false));
    let _ = context.add_function("find", find);
    let _ = context.add_function("findAll", find_all);
    let _ = context.add_function("url", url);
    let _ = context.add_function("isURL", |text: Arc<String>| Url::parse(&text).is_some());
    let _ = context.add_function("getScheme", |This(u): This<Cel>| {
        url_part(&u, |u| u.scheme.clone())
    });
    let _ = context.add_function("getHost", |This(u): This<Cel>| {
        url_part(&u, |u| u.host.clone())
    });
    let _ = context.add_function("getHostname", |This(u): This<Cel>| {
        url_part(&u, Url::hostname)
    });
    let _ = context.add_function("getPort", |This(u): This<Cel>| url_part(&u, Url::port));
    let _ = context.add_function("getEscapedPath", |This(u): This<Cel>| {
        url_part(&u, |u| u.path.clone())
    });
    let _ = context.add_function("getQuery", url_query);
    let _ = context.add_function("quantity", quantity);
    let _ = context.add_function("isQuantity", |text: Arc<String>| {
        Quantity::parse(&text).is_some()
    });
    let _ = context.add_function("compareTo", |This(a): This<Cel>, b: Cel| -> Result<i64> {
        Ok(match quantity_of(&a)?.cmp(&quantity_of(&b)?) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        })
    });
    let _ = context.add_function("isLessThan", |This(a): This<Cel>, b: Cel| -> Result<bool> {
        Ok(quantity_of(&a)? < quantity_of(&b)?)
    });
    let _ = context.add_function(
        "isGreaterThan",
        |This(a): This<Cel>, b: Cel| -> Result<bool> { Ok(quantity_of(&a)? > quantity_of(&b)?) },
    );
    let _ = context.add_function("asInteger", |This(a): This<Cel>| -> Result<i64> {
        let q = quantity_of(&a)?;
        match q.0 % Quantity::UNIT {
            0 => i64::try_from(q.0 / Quantity::UNIT)
                .map_err(|_| fail("asInteger", "cannot convert value to integer")),
            _ => Err(fail("asInteger", "cannot convert value to integer")),
        }
    });
    let _ = context.add_function("isInteger", |This(a): This<Cel>| -> Result<bool> {
        Ok(quantity_of(&a)?.0 % Quantity::UNIT == 0)
    });
    let _ = context.add_function("asApproximateFloat", |This(a): This<Cel>| -> Result<f64> {
        Ok(quantity_of(&a)?.0 as f64 / Quantity::UNIT as f64)
    });
    let _ = context.add_function("sign", |This(a): This<Cel>| -> Result<i64> {
        Ok(quantity_of(&a)?.0.signum() as i64)
    });
    let _ = context.add_function("add", |This(a): This<Cel>, b: Cel| -> Result<Cel> {
        Ok(quantity_of(&a)?.plus(&operand(&b)?, 1).into_cel())
    });
    let _ = context.add_function("sub", |This(a): This<Cel>, b: Cel| -> Result<Cel> {
        Ok(quantity_of(&a)?.plus(&operand(&b)?, -1).into_cel())
    });
}

fn list_items(value: &Cel, function: &str) -> Result<Arc<Vec<Cel>>> {
    match value {
        Cel::List(items) => Ok(Arc::clone(items)),
        other => Err(fail(function, format!("no such overload: {other:?}"))),
    }
}

/// CEL's ordering of two comparable values of one type.
fn compare(a: &Cel, b: &Cel) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Cel::Int(x), Cel::Int(y)) => Some(x.cmp(y)),
        (Cel::UInt(x), Cel::UInt(y)) => Some(x.cmp(y)),
        (Cel::Float(x), Cel::Float(y)) => x.partial_cmp(y),
        (Cel::String(x), Cel::String(y)) => Some(x.cmp(y)),
        (Cel::Bool(x), Cel::Bool(y)) => Some(x.cmp(y)),
        (Cel::Opaque(_), Cel::Opaque(_)) => Some(quantity_of(a).ok()?.cmp(&quantity_of(b).ok()?)),
        _ => None,
    }
}

fn is_sorted(This(list): This<Cel>) -> Result<bool> {
    let items = list_items(&list, "isSorted")?;
    for pair in items.windows(2) {
        match compare(&pair[0], &pair[1]) {
            Some(std::cmp::Ordering::Greater) => return Ok(false),
            Some(_) => {}
            None => return Err(fail("isSorted", "no such overload")),
        }
    }
    Ok(true)
}

fn sum(This(list): This<Cel>) -> Result<Cel> {
    let items = list_items(&list, "sum")?;
    let mut int: i64 = 0;
    let mut float: f64 = 0.0;
    let mut floats = false;
    for item in items.iter() {
        match item {
            Cel::Int(i) => {
                int = int
                    .checked_add(*i)
                    .ok_or_else(|| fail("sum", "integer overflow"))?
            }
            Cel::Float(f) => {
                floats = true;
                float += f;
            }
            other => return Err(fail("sum", format!("no such overload: {other:?}"))),
        }
    }
    Ok(if floats {
        Cel::Float(float + int as f64)
    } else {
        Cel::Int(int)
    })
}

fn extreme(list: Cel, smallest: bool) -> Result<Cel> {
    let name = if smallest { "min" } else { "max" };
    let items = list_items(&list, name)?;
    let mut best: Option<&Cel> = None;
    for item in items.iter() {
        best = match best {
            None => Some(item),
            Some(current) => match compare(item, current) {
                Some(std::cmp::Ordering::Less) if smallest => Some(item),
                Some(std::cmp::Ordering::Greater) if !smallest => Some(item),
                Some(_) => Some(current),
                None => return Err(fail(name, "no such overload")),
            },
        };
    }
    best.cloned()
        .ok_or_else(|| fail(name, format!("{name} called on empty list")))
}

fn compile_regex(function: &str, pattern: &str) -> Result<regex::Regex> {
    regex::Regex::new(pattern).map_err(|e| fail(function, e))
}

fn find(This(text): This<Arc<String>>, pattern: Arc<String>) -> Result<Cel> {
    let re = compile_regex("find", &pattern)?;
    let found = re.find(&text).map(|m| m.as_str().to_owned());
    Ok(Cel::String(Arc::new(found.unwrap_or_default())))
}

fn find_all(This(text): This<Arc<String>>, pattern: Arc<String>) -> Result<Cel> {
    let re = compile_regex("findAll", &pattern)?;
    Ok(Cel::List(Arc::new(
        re.find_iter(&text)
            .map(|m| Cel::String(Arc::new(m.as_str().to_owned())))
            .collect(),
    )))
}

/// A parsed URL (`url()`), as Go's `url.Parse` of an absolute URI or an absolute path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Url {
    scheme: String,
    host: String,
    path: String,
    query: String,
}

impl Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.URL"
    }
}

impl Url {
    fn parse(text: &str) -> Option<Url> {
        let (rest, query) = text.split_once('?').unwrap_or((text, ""));
        let rest = rest.split('#').next().unwrap_or_default();
        if rest.starts_with('/') {
            return Some(Url {
                scheme: String::new(),
                host: String::new(),
                path: rest.to_owned(),
                query: query.to_owned(),
            });
        }
        let (scheme, after) = rest.split_once("://")?;
        let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if !valid_scheme || text.contains(char::is_whitespace) {
            return None;
        }
        let (host, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        Some(Url {
            scheme: scheme.to_owned(),
            host: host.to_owned(),
            path: path.to_owned(),
            query: query.to_owned(),
        })
    }

    fn hostname(&self) -> String {
        let host = self.host.rsplit('@').next().unwrap_or_default();
        if let Some(inner) = host.strip_prefix('[') {
            return inner.split(']').next().unwrap_or_default().to_owned();
        }
        host.rsplit_once(':').map_or(host, |(h, _)| h).to_owned()
    }

    fn port(&self) -> String {
        let host = self.host.rsplit('@').next().unwrap_or_default();
        let after_bracket = host.rsplit(']').next().unwrap_or(host);
        after_bracket
            .rsplit_once(':')
            .map(|(_, p)| p.to_owned())
            .unwrap_or_default()
    }
}

fn url(text: Arc<String>) -> Result<Cel> {
    Url::parse(&text)
        .map(|u| Cel::Opaque(Arc::new(u)))
        .ok_or_else(|| {
            fail(
                "url",
                format!("URL parse error during conversion from string: {text}"),
            )
        })
}

fn url_of(value: &Cel) -> Result<&Url> {
    match value {
        Cel::Opaque(o) => o
            .downcast_ref::<Url>()
            .ok_or_else(|| fail("url", "not a URL")),
        _ => Err(fail("url", "not a URL")),
    }
}

fn url_part(value: &Cel, part: impl Fn(&Url) -> String) -> Result<Cel> {
    url_of(value).map(|u| Cel::String(Arc::new(part(u))))
}

fn url_query(This(value): This<Cel>) -> Result<Cel> {
    let u = url_of(&value)?;
    let mut map: HashMap<Key, Vec<Cel>> = HashMap::new();
    for pair in u.query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        map.entry(Key::String(Arc::new(k.to_owned())))
            .or_default()
            .push(Cel::String(Arc::new(v.to_owned())));
    }
    let map = map
        .into_iter()
        .map(|(k, v)| (k, Cel::List(Arc::new(v))))
        .collect();
    Ok(Cel::Map(Map { map: Arc::new(map) }))
}

/// A resource quantity in nano-units (`quantity()`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Quantity(i128);

impl Opaque for Quantity {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Quantity"
    }
}

impl Quantity {
    const UNIT: i128 = 1_000_000_000;

    /// A quantity as Kubernetes writes them: a signed decimal, then a binary (`Ki` … `Ei`),
    /// decimal (`n` … `E`) or exponent (`e3`) suffix.
    fn parse(text: &str) -> Option<Quantity> {
        let split = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
            .unwrap_or(text.len());
        let (number, suffix) = text.split_at(split);
        if number.is_empty() || number == "+" || number == "-" {
            return None;
        }
        let (negative, digits) = match number.as_bytes()[0] {
            b'-' => (true, &number[1..]),
            b'+' => (false, &number[1..]),
            _ => (false, number),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty() && fraction.is_empty()
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let scale: (i128, i32) = match suffix {
            "" => (1, 0),
            "Ki" => (1 << 10, 0),
            "Mi" => (1 << 20, 0),
            "Gi" => (1 << 30, 0),
            "Ti" => (1 << 40, 0),
            "Pi" => (1 << 50, 0),
            "Ei" => (1 << 60, 0),
            "n" => (1, -9),
            "u" => (1, -6),
            "m" => (1, -3),
            "k" => (1, 3),
            "M" => (1, 6),
            "G" => (1, 9),
            "T" => (1, 12),
            "P" => (1, 15),
            "E" => (1, 18),
            exponent => {
                let e: i32 = exponent.strip_prefix(['e', 'E'])?.parse().ok()?;
                (1, e)
            }
        };
        let mut nanos: i128 = whole.parse::<i128>().unwrap_or(0).checked_mul(Self::UNIT)?;
        let mut place: i128 = Self::UNIT / 10;
        for d in fraction.bytes().take(9) {
            nanos += i128::from(d - b'0') * place;
            place /= 10;
        }
        nanos = nanos.checked_mul(scale.0)?;
        nanos = match scale.1 {
            e if e >= 0 => nanos.checked_mul(10i128.checked_pow(e.unsigned_abs())?)?,
            e => nanos / 10i128.checked_pow(e.unsigned_abs())?,
        };
        Some(Quantity(if negative { -nanos } else { nanos }))
    }

    fn plus(&self, other: &Quantity, sign: i128) -> Quantity {
        Quantity(self.0 + sign * other.0)
    }

    fn into_cel(self) -> Cel {
        Cel::Opaque(Arc::new(self))
    }
}

fn quantity(text: Arc<String>) -> Result<Cel> {
    Quantity::parse(&text)
        .map(Quantity::into_cel)
        .ok_or_else(|| fail("quantity", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"))
}

fn quantity_of(value: &Cel) -> Result<Quantity> {
    match value {
        Cel::Opaque(o) => o
            .downcast_ref::<Quantity>()
            .cloned()
            .ok_or_else(|| fail("quantity", "not a quantity")),
        _ => Err(fail("quantity", "not a quantity")),
    }
}

/// The operand of `add`/`sub`: a quantity or an int.
fn operand(value: &Cel) -> Result<Quantity> {
    match value {
        Cel::Int(i) => Ok(Quantity(i128::from(*i) * Quantity::UNIT)),
        other => quantity_of(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(rule: &str) -> Cel {
        let program = ENV.compile(rule).expect("compiles");
        program.execute(&context(&Cel::Null, None)).expect("runs")
    }

    #[test]
    fn the_kubernetes_libraries_answer_as_kube_apiserver_s() {
        for rule in [
            "[1, 2, 2, 3].isSorted()",
            "![2, 1].isSorted()",
            "[1, 2, 3].sum() == 6",
            "[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3",
            "'abc123'.find('[0-9]+') == '123'",
            "'a1b22'.findAll('[0-9]+') == ['1', '22']",
            "isURL('https://example.com:8443/x?a=1')",
            "url('https://example.com:8443/x').getHostname() == 'example.com'",
            "url('https://example.com:8443/x').getPort() == '8443'",
            "url('https://example.com/x?a=1').getQuery()['a'] == ['1']",
            "quantity('1Gi').isGreaterThan(quantity('1G'))",
            "quantity('500m').compareTo(quantity('0.5')) == 0",
            "quantity('2k').asInteger() == 2000",
            "isQuantity('1.5Mi') && !isQuantity('one')",
            "quantity('1').add(2).asInteger() == 3",
            "'Hello'.lowerAscii() == 'hello' && 'a,b'.split(',') == ['a', 'b']",
            "'abc'.matches('^a') && 'abc'.startsWith('ab')",
        ] {
            assert_eq!(eval(rule), Cel::Bool(true), "{rule}");
        }
    }
}
