//! The report's plots, drawn by plotters into inline SVG (no script, no network): bars
//! (grouped or stacked), a scatter whose points are sized by how many tasks sit there,
//! and lines over time with marks on the time axis. Each takes plain rows; the figures
//! come from SQL views, never from here.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{Error, Result};

/// Colours that stay apart for colour-blind readers (Okabe and Ito), one per series.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// Drift severities, in `Severity::ALL`'s order: breaking red to compatible green.
pub const SEVERITY: [RGBColor; 5] = [
    RGBColor(180, 35, 24),
    RGBColor(230, 120, 0),
    RGBColor(220, 190, 40),
    RGBColor(86, 150, 220),
    RGBColor(40, 150, 90),
];

pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The CSS form of series `i`'s colour, for legends drawn in HTML.
pub fn css_color(i: usize) -> String {
    let RGBColor(r, g, b) = color(i);
    format!("#{r:02x}{g:02x}{b:02x}")
}

const FONT: &str = "sans-serif";

fn draw_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Bug(format!("cannot draw a plot: {e:?}"))
}

fn svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>,
) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        draw(&root)?;
        root.present().map_err(draw_err)?;
    }
    Ok(out)
}

/// A tick label: at most four decimals, no trailing zeros (0.6, not 0.6000000000000001).
fn tick(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

fn nice_max(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if v <= m * mag {
            return m * mag;
        }
    }
    10.0 * mag
}

/// One bar per category and series: side by side (`stacked` false) or on top of each
/// other. With one series, each category takes its own colour.
pub fn bars(
    y_desc: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    stacked: bool,
) -> Result<String> {
    bars_with(y_desc, categories, series, stacked, &PALETTE)
}

/// `bars` with series `i` in `palette[i]`.
pub fn bars_with(
    y_desc: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    stacked: bool,
    palette: &[RGBColor],
) -> Result<String> {
    let pick = |i: usize| palette[i % palette.len()];
    let n = categories.len().max(1);
    let k = if stacked { 1 } else { series.len().max(1) };
    // Each category has k slots for its bars and one for the gap after them.
    let slots = (n * (k + 1)) as u32;
    let top = if stacked {
        (0..categories.len())
            .map(|c| {
                series
                    .iter()
                    .map(|s| s.1.get(c).copied().unwrap_or(0.0))
                    .sum()
            })
            .fold(0.0, f64::max)
    } else {
        series
            .iter()
            .flat_map(|s| s.1.iter().copied())
            .fold(0.0, f64::max)
    };
    let integers = series
        .iter()
        .flat_map(|s| s.1.iter())
        .all(|v| v.fract() == 0.0);
    let ymax = if integers && top <= 5.0 {
        top.max(1.0) + 1.0
    } else {
        nice_max(top)
    };
    // Room under each category for its name, up to a point.
    let longest = categories
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(0) as u32;
    let per_slot = (longest.min(40) * 7 / (k as u32 + 1)).max(34);
    let width = (160 + per_slot * slots).clamp(420, 1100);
    let label_of = |slot: u32| -> String {
        let c = (slot as usize) / (k + 1);
        if (slot as usize) % (k + 1) == (k - 1) / 2 {
            let name = categories.get(c).cloned().unwrap_or_default();
            let room = 30 / k.max(1) + 10;
            if name.chars().count() > room {
                format!("{}…", name.chars().take(room - 1).collect::<String>())
            } else {
                name
            }
        } else {
            String::new()
        }
    };
    svg((width, 300), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d((0u32..slots).into_segmented(), 0f64..ymax)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(TRANSPARENT)
            .y_labels(6)
            .y_label_formatter(&|v| {
                if integers && v.fract().abs() > 1e-9 {
                    String::new()
                } else if integers {
                    format!("{v:.0}")
                } else {
                    tick(*v)
                }
            })
            .x_labels(slots as usize)
            .x_label_formatter(&|v| match v {
                SegmentValue::Exact(s) | SegmentValue::CenterOf(s) => label_of(*s),
                SegmentValue::Last => String::new(),
            })
            .y_desc(y_desc)
            .label_style((FONT, 12))
            .draw()
            .map_err(draw_err)?;
        for (si, (name, values)) in series.iter().enumerate() {
            let rects = values.iter().enumerate().map(|(c, &v)| {
                let slot = (c * (k + 1) + if stacked { 0 } else { si }) as u32;
                let base: f64 = if stacked {
                    series[..si]
                        .iter()
                        .map(|s| s.1.get(c).copied().unwrap_or(0.0))
                        .sum()
                } else {
                    0.0
                };
                let fill = if series.len() == 1 { pick(c) } else { pick(si) };
                Rectangle::new(
                    [
                        (SegmentValue::Exact(slot), base),
                        (SegmentValue::Exact(slot + 1), base + v),
                    ],
                    fill.filled(),
                )
            });
            let drawn = chart.draw_series(rects).map_err(draw_err)?;
            if series.len() > 1 {
                let c = pick(si);
                drawn.label(name.as_str()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled())
                });
            }
        }
        if series.len() > 1 {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.3))
                .label_font((FONT, 12))
                .draw()
                .map_err(draw_err)?;
        }
        Ok(())
    })
}

/// A series' points: (x, y, how many tasks are there).
pub type Points = Vec<(f64, f64, u64)>;

/// A point per (series, x, y) with how many tasks are there: the radius grows with the
/// square root of the count, so the area is the count.
pub fn scatter(x_desc: &str, y_desc: &str, series: &[(String, Points)]) -> Result<String> {
    let most = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.2))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    svg((520, 420), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(-0.05f64..1.05f64, -0.05f64..1.05f64)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .label_style((FONT, 12))
            .draw()
            .map_err(draw_err)?;
        for (si, (name, points)) in series.iter().enumerate() {
            let c = color(si);
            let drawn = chart
                .draw_series(points.iter().map(|&(x, y, n)| {
                    let r = 2.0 + 10.0 * ((n as f64) / most).sqrt();
                    Circle::new((x, y), r as i32, c.mix(0.55).filled())
                }))
                .map_err(draw_err)?;
            drawn
                .label(name.as_str())
                .legend(move |(x, y)| Circle::new((x + 5, y), 5, c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font((FONT, 12))
            .draw()
            .map_err(draw_err)?;
        Ok(())
    })
}

/// Lines of (unix seconds, value) per series, with a dashed vertical mark at each of
/// `marks` (unix seconds, a short label).
pub fn lines_over_time(
    y_desc: &str,
    series: &[(String, Vec<(i64, f64)>)],
    marks: &[(i64, String)],
) -> Result<String> {
    let xs = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .chain(marks.iter().map(|m| m.0));
    let (lo, hi) = xs.fold((i64::MAX, i64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (lo, hi) = if lo > hi {
        (0, 1)
    } else if lo == hi {
        (lo - 43_200, hi + 43_200)
    } else {
        let pad = (hi - lo) / 20;
        (lo - pad, hi + pad)
    };
    let values = series.iter().flat_map(|s| s.1.iter().map(|p| p.1));
    let (vlo, vhi) = values.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let (vlo, vhi) = if vlo > vhi {
        (0.0, 1.0)
    } else if (vhi - vlo).abs() < 1e-12 {
        (
            vlo - 0.5 * vlo.abs().max(0.1),
            vhi + 0.5 * vhi.abs().max(0.1),
        )
    } else {
        let pad = (vhi - vlo) * 0.1;
        (vlo - pad, vhi + pad)
    };
    let day = |t: &i64| {
        chrono::DateTime::from_timestamp(*t, 0)
            .map(|d| d.format("%Y-%m-%d").to_string())
            .unwrap_or_default()
    };
    svg((520, 260), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(56)
            .build_cartesian_2d(lo..hi, vlo..vhi)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_labels(4)
            .x_label_formatter(&day)
            .y_label_formatter(&|v| tick(*v))
            .y_desc(y_desc)
            .label_style((FONT, 11))
            .draw()
            .map_err(draw_err)?;
        for (i, (t, label)) in marks.iter().enumerate() {
            let grey = RGBColor(120, 120, 120);
            // Labels of nearby marks on three heights, so that they do not overprint.
            let y = vhi - (i % 3) as f64 * 0.08 * (vhi - vlo);
            let dash = DashedLineSeries::new(
                [(*t, vlo), (*t, vhi)],
                5,
                4,
                ShapeStyle::from(&grey).stroke_width(1),
            );
            chart.draw_series(dash).map_err(draw_err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (*t, y),
                    (FONT, 10).into_font().color(&grey),
                )))
                .map_err(draw_err)?;
        }
        for (si, (name, points)) in series.iter().enumerate() {
            let c = color(si);
            chart
                .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))
                .map_err(draw_err)?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 12, y)], c.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(draw_err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font((FONT, 11))
            .draw()
            .map_err(draw_err)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_draw_a_rect_per_value_and_name_each_category() {
        let cats = vec!["entity".to_string(), "semantic".to_string()];
        let s = bars(
            "tasks",
            &cats,
            &[("a".into(), vec![1.0, 5.0]), ("b".into(), vec![2.0, 0.0])],
            false,
        )
        .unwrap();
        assert!(s.starts_with("<svg"), "{s}");
        assert!(
            s.contains(">\nentity\n</text>") || s.contains(">entity</text>"),
            "{s}"
        );
        assert!(s.contains("semantic"));
        // Four bars, and the legend's two swatches.
        assert!(s.matches("<rect").count() >= 6, "{s}");
    }

    #[test]
    fn scatter_and_lines_escape_names() {
        let s = scatter(
            "recall",
            "precision",
            &[("a<b".into(), vec![(0.5, 0.5, 3)])],
        )
        .unwrap();
        assert!(s.contains("a&lt;b") && !s.contains("a<b"), "{s}");
        let l = lines_over_time(
            "value",
            &[("x".into(), vec![(1_700_000_000, 0.5), (1_700_086_400, 0.7)])],
            &[(1_700_050_000, "search: renamed & <x>".into())],
        )
        .unwrap();
        assert!(l.contains("stroke-dasharray") || l.contains("<line"), "{l}");
        assert!(l.contains("&lt;x&gt;"), "{l}");
    }
}
