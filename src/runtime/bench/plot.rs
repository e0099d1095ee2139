//! `accshare bench --plot FILE.svg`: the speed-up over naive of each level, per kernel and
//! device (measured) and per kernel and platform (the model's estimates, a second panel), as
//! grouped bars in the style of the paper's Fig. 7/8: within a group the bars are cumulative
//! (`+share`, `+bank`, `+ILP`), so the step from one bar to the next is what that optimization
//! adds. A line marks 1 (naive).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{BenchReport, Level};

/// One group of bars: its label and the speed-up of each optimized level (`None`: failed).
struct Group {
    label: String,
    speedups: [Option<f64>; 3],
}

const COLORS: [RGBColor; 3] = [
    RGBColor(0x4c, 0x72, 0xb0),
    RGBColor(0xdd, 0x84, 0x52),
    RGBColor(0x55, 0xa8, 0x68),
];

fn groups(r: &BenchReport) -> (Vec<Group>, Vec<Group>) {
    let pick = |levels: &mut dyn Iterator<Item = (Level, Option<f64>)>| {
        let mut s = [None; 3];
        for (l, x) in levels {
            match l {
                Level::Share => s[0] = x,
                Level::Bank => s[1] = x,
                Level::Ilp => s[2] = x,
                Level::Naive => {}
            }
        }
        s
    };
    let (mut measured, mut model) = (Vec::new(), Vec::new());
    for p in &r.programs {
        for k in &p.kernels {
            for m in &k.measured {
                measured.push(Group {
                    label: format!("{} @ {}", k.kernel, m.device),
                    speedups: pick(&mut m.levels.iter().map(|l| (l.level, l.speedup))),
                });
            }
            for m in &k.model {
                model.push(Group {
                    label: format!("{} @ {}", k.kernel, m.platform),
                    speedups: pick(&mut m.levels.iter().map(|l| (l.level, l.speedup))),
                });
            }
        }
    }
    (measured, model)
}

/// Writes the chart of `r` to `path` (SVG).
pub fn svg(r: &BenchReport, path: &Path) -> Result<(), String> {
    let (measured, model) = groups(r);
    let panels: Vec<(String, &[Group])> = [
        (
            format!(
                "measured (kernels compiled for {}): speed-up over naive",
                r.compiled_for
            ),
            measured.as_slice(),
        ),
        (
            "model estimate (roofline, per platform): speed-up over naive".to_string(),
            model.as_slice(),
        ),
    ]
    .into_iter()
    .filter(|(_, g)| !g.is_empty())
    .collect();
    let most = panels.iter().map(|(_, g)| g.len()).max().unwrap_or(1);
    let width = (160 + 56 * most as u32).max(800);
    let height = 480 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<_>| format!("{}: {}", path.display(), e);
    root.fill(&WHITE).map_err(e)?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for ((title, gs), area) in panels.iter().zip(&areas) {
        let top = gs
            .iter()
            .flat_map(|g| g.speedups.iter().flatten())
            .fold(1.0f64, |a, &b| a.max(b));
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(170)
            .y_label_area_size(56)
            // Every panel on the widest one's scale: bars of the same width, left-aligned.
            .build_cartesian_2d(0f64..most as f64, 0f64..top * 1.15)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .y_desc("speed-up over naive")
            .draw()
            .map_err(e)?;
        for (b, color) in COLORS.iter().enumerate() {
            let bars = gs.iter().enumerate().filter_map(move |(i, g)| {
                let s = g.speedups[b]?;
                let x0 = i as f64 + 0.14 + 0.24 * b as f64;
                Some(Rectangle::new([(x0, 0.0), (x0 + 0.22, s)], color.filled()))
            });
            chart
                .draw_series(bars)
                .map_err(e)?
                .label(Level::ALL[b + 1].label())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, 1.0), (gs.len() as f64, 1.0)],
                BLACK.stroke_width(1),
            )))
            .map_err(e)?
            .label("naive");
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        // The group labels, written downwards under each group.
        let style = TextStyle::from(("sans-serif", 12).into_font())
            .transform(FontTransform::Rotate90)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, g) in gs.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
            root.draw(&Text::new(g.label.clone(), (x, y + 6), style.clone()))
                .map_err(e)?;
        }
    }
    root.present().map_err(e)?;
    Ok(())
}
