//! `proxy`'s STREAM cell: a client-side informer's name (`CLIENT/RESOURCE[@NAMESPACE][,l=…]
//! [,f=…][#N]`) fitted to the column. What tells two streams of one client apart is their
//! resource, so the client's name is cut first (`my-op…/configmaps@default`), then the
//! namespace and selectors in their middle; the resource itself is cut only when it alone is
//! wider than the column.

/// `name` in at most `width` characters; see the module documentation.
pub fn fit(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        return name.to_owned();
    }
    let Some((client, rest)) = name.split_once('/') else {
        return elide_middle(name, width);
    };
    let rest_len = rest.chars().count();
    // Room for the client, its `…` and the `/`.
    let room = width.saturating_sub(rest_len + 1);
    if room >= 2 {
        let head: String = client.chars().take(room - 1).collect();
        return format!("{head}…/{rest}");
    }
    if room == 1 {
        return format!("…/{rest}");
    }
    let resource_len = rest.find(['@', ',', '#']).unwrap_or(rest.len());
    let (resource, scope) = rest.split_at(resource_len);
    let resource_len = resource.chars().count();
    if rest_len <= width {
        return rest.to_owned();
    }
    if resource_len + 2 <= width {
        return format!("{resource}{}", cut_scope(scope, width - resource_len));
    }
    elide_middle(rest, width)
}

/// `@NAMESPACE,l=…,f=…#N` in `width` characters: cut at its end (`@defa…`), the `#N` of a
/// second informer kept.
fn cut_scope(scope: &str, width: usize) -> String {
    let (body, informer) = match scope.rfind('#') {
        Some(at) => scope.split_at(at),
        None => (scope, ""),
    };
    let room = width.saturating_sub(informer.chars().count() + 1);
    let head: String = body.chars().take(room).collect();
    format!("{head}…{informer}")
}

/// `s` cut in the middle to `width` characters (`…` where it was cut), its end kept longer
/// than its start.
fn elide_middle(s: &str, width: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= width {
        return s.to_owned();
    }
    let head = width.saturating_sub(1) * 2 / 5;
    let tail = width.saturating_sub(1 + head);
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn two_streams_of_one_client_stay_apart_at_16_and_32_columns() {
        let pods = "my-operator/pods@default";
        let configmaps = "my-operator/configmaps@default";
        assert_eq!(fit(pods, 16), "my…/pods@default");
        assert_eq!(fit(configmaps, 16), "configmaps@defa…");
        assert_eq!(fit(pods, 32), pods, "short enough: whole");
        assert_eq!(fit(configmaps, 24), "my-o…/configmaps@default");
    }

    #[test]
    fn the_resource_is_kept_whole_while_it_fits() {
        let selected = "OpenAPI-Generator/pods@default,l=app=web";
        assert_eq!(fit(selected, 16), "pods@default,l=…");
        assert_eq!(fit("kinformer/pods@default#2", 16), "…/pods@default#2");
        assert_eq!(
            fit("kinformer/pods@default,l=a=b#2", 16),
            "pods@default,…#2"
        );
        let huge = fit(
            "k/mutatingwebhookconfigurations.admissionregistration.k8s.io",
            16,
        );
        assert_eq!(huge.chars().count(), 16, "{huge}");
    }
}
