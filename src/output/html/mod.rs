//! Self-contained HTML pages (`report --html`, `report diff --html`, `drift --format
//! html`, `groundcheck html`): one file with its styles, a small script for sorting and
//! filtering the case table, and its plots as inline SVG; it loads nothing from anywhere
//! (no CDN, no font, no image), so it opens from a file:// URL or as a CI artifact.
//!
//! The templates (minijinja, escaped by default) live in `templates/`; the data they lay
//! out is `page`'s structs, filled from SQL by the verbs.

pub mod chart;
pub mod marks;
pub mod page;

use minijinja::Environment;
use serde::Serialize;

use crate::error::{Error, Result};

const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("templates/base.html")),
    ("report.html", include_str!("templates/report.html")),
    ("diff.html", include_str!("templates/diff.html")),
    ("drift.html", include_str!("templates/drift.html")),
    ("style.css", include_str!("templates/style.css")),
    ("table.js", include_str!("templates/table.js")),
];

fn environment() -> Result<Environment<'static>> {
    let mut env = Environment::new();
    // .html templates escape every value unless marked safe (the SVG plots only).
    env.set_auto_escape_callback(|name| {
        if name.ends_with(".html") {
            minijinja::AutoEscape::Html
        } else {
            minijinja::AutoEscape::None
        }
    });
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    for (name, text) in TEMPLATES {
        env.add_template(name, text)
            .map_err(|e| Error::Bug(format!("HTML template {name}: {e}")))?;
    }
    Ok(env)
}

/// Renders `template` over `page`.
pub fn render<T: Serialize>(template: &str, page: &T) -> Result<String> {
    let env = environment()?;
    let t = env
        .get_template(template)
        .map_err(|e| Error::Bug(format!("HTML template {template}: {e}")))?;
    t.render(minijinja::Value::from_serialize(page))
        .map_err(|e| Error::Bug(format!("HTML template {template}: {e:#}")))
}

/// The report page as one HTML document.
pub fn report(page: &page::ReportPage) -> Result<String> {
    render("report.html", page)
}

pub fn diff(page: &page::DiffPage) -> Result<String> {
    render("diff.html", page)
}

pub fn drift(page: &page::DriftPage) -> Result<String> {
    render("drift.html", page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_compiles() {
        let env = environment().unwrap();
        for (name, _) in TEMPLATES {
            env.get_template(name).unwrap();
        }
    }

    #[test]
    fn values_are_escaped_and_nothing_is_fetched() {
        let page = page::DiffPage {
            title: "<script>alert(1)</script>".into(),
            a: "a".into(),
            b: "b".into(),
            deltas: vec![],
            flips: vec![page::FlipRow {
                case_id: "x\"><img src=y>".into(),
                change: "correct -> wrong".into(),
                regression: true,
            }],
            plots: vec![],
        };
        let html = diff(&page).unwrap();
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        for fetch in ["src=\"http", "href=\"http", "url(http", "@import", "<link"] {
            assert!(!html.contains(fetch), "{fetch} in {html}");
        }
    }
}
