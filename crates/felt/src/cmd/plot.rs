//! `--plot FILE.svg`: the lab's figures as SVG line charts (plotters' SVG backend:
//! text stays `<text>` for the viewer to set, no font is read).

use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use std::path::Path;

/// One line: its name (the legend) and its points.
pub struct Line {
    /// The legend.
    pub name: String,
    /// The points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// One chart of a figure.
pub struct Panel {
    /// The chart's title.
    pub title: String,
    /// The x axis's label.
    pub x_label: String,
    /// The y axis's label.
    pub y_label: String,
    /// Its lines.
    pub lines: Vec<Line>,
    /// A shaded interval (x, low, high), drawn under the lines.
    pub band: Option<Vec<(f64, f64, f64)>>,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// The range of `v` with a margin, never empty.
fn range(v: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = v
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    if !lo.is_finite() {
        return 0.0..1.0;
    }
    let pad = ((hi - lo) * 0.05).max(1e-9);
    (lo - pad)..(hi + pad)
}

fn draw(panels: &[Panel], svg: &mut String) -> Result<(), String> {
    let height = 360 * panels.len() as u32;
    let root = SVGBackend::with_string(svg, (800, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let areas = root.split_evenly((panels.len(), 1));
    for (p, area) in panels.iter().zip(&areas) {
        let xs = p
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|q| q.0))
            .chain(p.band.iter().flatten().map(|b| b.0));
        let ys = p
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|q| q.1))
            .chain(p.band.iter().flatten().flat_map(|b| [b.1, b.2]));
        let mut chart = ChartBuilder::on(area)
            .caption(&p.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(range(xs), range(ys))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(p.x_label.as_str())
            .y_desc(p.y_label.as_str())
            .draw()
            .map_err(|e| e.to_string())?;
        if let Some(band) = &p.band {
            let mut poly: Vec<(f64, f64)> = band.iter().map(|b| (b.0, b.2)).collect();
            poly.extend(band.iter().rev().map(|b| (b.0, b.1)));
            chart
                .draw_series(std::iter::once(Polygon::new(poly, COLORS[0].mix(0.2))))
                .map_err(|e| e.to_string())?
                .label("95% interval")
                .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], COLORS[0].mix(0.2)));
        }
        for (i, l) in p.lines.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            chart
                .draw_series(LineSeries::new(
                    l.points.iter().copied(),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(l.name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}

/// Draws `panels` one above the other and writes the SVG to `path`.
pub fn write(path: &Path, panels: &[Panel]) -> Result<()> {
    if panels.is_empty()
        || panels
            .iter()
            .all(|p| p.lines.iter().all(|l| l.points.is_empty()))
    {
        bail!("--plot {}: nothing to plot", path.display());
    }
    let mut svg = String::new();
    draw(panels, &mut svg)
        .map_err(|e| anyhow::anyhow!("--plot {}: drawing failed: {e}", path.display()))?;
    std::fs::write(path, svg).with_context(|| format!("cannot write the plot {}", path.display()))
}

/// Checks before a long run that the plot can be written where `path` says.
pub fn check(path: &Path) -> Result<()> {
    std::fs::File::create(path)
        .map(drop)
        .with_context(|| format!("cannot write the plot {}", path.display()))
}

/// The counter's edge by true count (with its 95% interval) and the true count's
/// frequency: one point per row of the report's true-count table.
pub fn true_count_panels(c: &felt_sim::counting::CountingReport) -> Vec<Panel> {
    let edge: Vec<(f64, f64, f64)> = c
        .by_true_count
        .iter()
        .filter_map(|r| {
            r.main_advantage
                .map(|e| (f64::from(r.tc), e.value * 100.0, e.se * 100.0))
        })
        .collect();
    let what = if c.balanced {
        "true count"
    } else {
        "running count"
    };
    vec![
        Panel {
            title: format!("Main game edge by {what} ({})", c.count),
            x_label: what.into(),
            y_label: "player advantage, % of the initial bet".into(),
            lines: vec![Line {
                name: "advantage".into(),
                points: edge.iter().map(|&(x, v, _)| (x, v)).collect(),
            }],
            band: Some(
                edge.iter()
                    .map(|&(x, v, se)| (x, v - 1.96 * se, v + 1.96 * se))
                    .collect(),
            ),
        },
        Panel {
            title: format!("Frequency of each {what}"),
            x_label: what.into(),
            y_label: "% of rounds seen".into(),
            lines: vec![Line {
                name: "frequency".into(),
                points: c
                    .by_true_count
                    .iter()
                    .map(|r| (f64::from(r.tc), r.frequency * 100.0))
                    .collect(),
            }],
            band: None,
        },
    ]
}
