//! `cargo xtask chart TABLE.txt OUT.png`: the bar chart of one SIMT benchmark run, drawn
//! from the table bench/report_simt.py prints (its `kernel ...` header line names the
//! columns; `-` is a missing value): per kernel, the time of cudajit (bounds-checked and
//! not) and of Numba as a multiple of nvcc's, with the 1.00 and 1.05 lines.
//! `cargo xtask chart-hl TABLE.txt OUT.png`: the same for bench/report_hl.py's table of
//! the high-level operations (`op ...` header): cudajit's time over its reference's
//! (CuPy, CUB, the written kernel), with the 1.00, 1.05 and 1.10 lines.
//! `cargo xtask chart-tc TABLE.txt OUT.png`: bench/report_tc.py's tensor-core table
//! (`tc_kernel ...` header): cudajit's and the library's time over nvcc's.
//! `cargo xtask chart-multi TABLE.txt OUT.png`: bench/run_multi.sh's table (`multi_row
//! ...` header): cudajit's bandwidth over PyTorch's and the example's speedup over
//! linear, with the 0.95 line every bar of the multi-GPU issue sits on.
//!
//! Drawn by plotters into a bitmap with an embedded font (DejaVu Sans through ab_glyph),
//! so it needs no system font library and renders the same everywhere.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

/// One table row: its name and its ratios, one per series of the table's [`Style`].
#[derive(Debug, PartialEq)]
pub struct Row {
    pub kernel: String,
    pub ratios: Vec<Option<f64>>,
}

#[derive(Debug, PartialEq)]
pub struct Table {
    /// The run's first header lines (title, commit, device), for the caption.
    pub title: Vec<String>,
    pub rows: Vec<Row>,
}

/// What one kind of table looks like and how its chart is labelled.
pub struct Style {
    /// The first word of the table's header line.
    header: &'static str,
    /// (column in the table, legend label, colour), one bar per row each.
    series: &'static [(&'static str, &'static str, RGBColor)],
    /// Horizontal lines (ratio, colour).
    levels: &'static [(f64, RGBColor)],
    y_desc: &'static str,
    /// After the caption's first line: what the bars are.
    what: &'static str,
    usage: &'static str,
}

/// The SIMT suite (bench/report_simt.py).
pub const SIMT: Style = Style {
    header: "kernel",
    series: &[
        ("cj/nvcc", "cudajit #[kernel]", RGBColor(31, 119, 180)),
        (
            "nochk/nvcc",
            "cudajit boundscheck = false",
            RGBColor(44, 160, 44),
        ),
        ("numba/nvcc", "Numba @cuda.jit", RGBColor(255, 127, 14)),
    ],
    levels: &[(1.0, BLACK), (1.05, RED)],
    y_desc: "x nvcc -O3",
    what: "time / nvcc time (lower is faster)",
    usage: "usage: cargo xtask chart TABLE.txt OUT.png (TABLE: bench/run_simt.sh's simt.txt)",
};

/// The high-level operations (bench/report_hl.py).
pub const HL: Style = Style {
    header: "op",
    series: &[(
        "cj/ref",
        "cudajit / reference (ref column: CuPy, CUB or the written kernel)",
        RGBColor(31, 119, 180),
    )],
    levels: &[(1.0, BLACK), (1.05, RED), (1.10, MAGENTA)],
    y_desc: "x reference",
    what: "time / reference time (lower is faster)",
    usage: "usage: cargo xtask chart-hl TABLE.txt OUT.png (TABLE: bench/run_hl.sh's hl.txt)",
};

/// The tensor-core kernels (bench/report_tc.py): cudajit's time and the library's over
/// nvcc's (a library bar under 1 is the library being faster than the nvcc kernel).
pub const TC: Style = Style {
    header: "tc_kernel",
    series: &[
        ("cj/nvcc", "cudajit #[kernel]", RGBColor(31, 119, 180)),
        (
            "nochk/nvcc",
            "cudajit boundscheck = false",
            RGBColor(44, 160, 44),
        ),
        (
            "lib/nvcc",
            "library (cuBLAS, SDPA FLASH_ATTENTION)",
            RGBColor(148, 103, 189),
        ),
    ],
    levels: &[(1.0, BLACK), (1.05, RED)],
    y_desc: "x nvcc -O3",
    what: "time / nvcc time (lower is faster)",
    usage: "usage: cargo xtask chart-tc TABLE.txt OUT.png (TABLE: bench/run_tc.sh's tc.txt)",
};

/// Several GPUs (bench/run_multi.sh): ratios where higher is better.
pub const MULTI: Style = Style {
    header: "multi_row",
    series: &[(
        "cj/ref",
        "cudajit / PyTorch (bandwidth); speedup / linear (example)",
        RGBColor(31, 119, 180),
    )],
    levels: &[(0.95, RED), (1.0, BLACK)],
    y_desc: "x reference",
    what: "bandwidth or speedup / reference (higher is better)",
    usage:
        "usage: cargo xtask chart-multi TABLE.txt OUT.png (TABLE: bench/run_multi.sh's multi.txt)",
};

/// The launch's host time (bench/report.py's `launch_row` table): cudajit's launch and the
/// best bare program's over the bare `cuLaunchKernel`, with issue 27's bars.
pub const LAUNCH: Style = Style {
    header: "launch_row",
    series: &[
        (
            "cj/bare",
            "cudajit launch! / bare cuLaunchKernel",
            RGBColor(31, 119, 180),
        ),
        (
            "floor/bare",
            "best bare program (cuLaunchKernelEx; alternating: + one event)",
            RGBColor(127, 127, 127),
        ),
    ],
    levels: &[(1.0, BLACK), (1.01, RED), (1.15, MAGENTA)],
    y_desc: "x bare cuLaunchKernel",
    what: "host time per launch / bare (lower is faster)",
    usage: "usage: cargo xtask chart-launch TABLE.txt OUT.png (TABLE: bench/run.sh's bench.txt)",
};

const FONT: &str = "sans-serif";
/// Bars taller than this are cut and labelled with their value (Numba can be far off).
const Y_CAP: f64 = 3.0;

pub fn run(args: &[String], style: &Style) -> Result<(), String> {
    let [table, png] = args else {
        return Err(style.usage.into());
    };
    let text = std::fs::read_to_string(table).map_err(|e| format!("{table}: {e}"))?;
    let parsed = parse_as(&text, style).map_err(|e| format!("{table}: {e}"))?;
    draw_as(&parsed, Path::new(png), style)?;
    eprintln!("xtask: wrote {png} ({} rows)", parsed.rows.len());
    Ok(())
}

/// Reads a SIMT kernel table.
#[cfg(test)]
pub fn parse(text: &str) -> Result<Table, String> {
    parse_as(text, &SIMT)
}

/// Reads the table: from the line starting with `style`'s header word to the first
/// blank line.
pub fn parse_as(text: &str, style: &Style) -> Result<Table, String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.split_whitespace().next() == Some(style.header))
        .ok_or(format!(
            "no table header (a line starting with `{}`)",
            style.header
        ))?;
    let header: Vec<&str> = lines[start].split_whitespace().collect();
    let columns: Vec<usize> = style
        .series
        .iter()
        .map(|(name, _, _)| {
            header
                .iter()
                .position(|h| h == name)
                .ok_or(format!("the table has no `{name}` column"))
        })
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::new();
    for line in &lines[start + 1..] {
        let cells: Vec<&str> = line.split_whitespace().collect();
        // The table ends at a blank line or at the first line that is not a row of it.
        if cells.len() < header.len() - 1 {
            break;
        }
        let ratio = |c: usize| cells.get(c).and_then(|v| v.parse::<f64>().ok());
        rows.push(Row {
            kernel: cells[0].to_string(),
            ratios: columns.iter().map(|&c| ratio(c)).collect(),
        });
    }
    if rows.is_empty() {
        return Err("the table has no rows".into());
    }
    // The run's own header: a committed results file's leading `#` comment is not it.
    let title = lines
        .iter()
        .take(start)
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .take(3)
        .map(|l| l.to_string())
        .collect();
    Ok(Table { title, rows })
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is a valid TrueType file compiled into xtask: cannot fail.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// Draws a SIMT kernel table.
#[cfg(test)]
pub fn draw(table: &Table, png: &Path) -> Result<(), String> {
    draw_as(table, png, &SIMT)
}

pub fn draw_as(table: &Table, png: &Path, style: &Style) -> Result<(), String> {
    register_font();
    let err = |e: &dyn std::fmt::Display| format!("drawing {}: {e}", png.display());
    let n = table.rows.len();
    let width = (200 + 110 * n as u32).max(900);
    let root = BitMapBackend::new(png, (width, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let tallest = table
        .rows
        .iter()
        .flat_map(|r| r.ratios.iter().flatten())
        .fold(1.2f64, |m, &r| m.max(r.min(Y_CAP)));
    let y_max = tallest * 1.12;
    let caption = table
        .title
        .first()
        .cloned()
        .unwrap_or_else(|| "cudajit benchmark".to_string());
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{caption}: {}", style.what), (FONT, 20))
        .margin(15)
        .x_label_area_size(60)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..n as f64, 0f64..y_max)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(1))
        .x_label_formatter(&|_| String::new())
        .y_desc(style.y_desc)
        .label_style((FONT, 14))
        .draw()
        .map_err(|e| err(&e))?;

    let bar = 0.8 / style.series.len() as f64;
    for (s, (_, label, colour)) in style.series.iter().enumerate() {
        let bars: Vec<_> = table
            .rows
            .iter()
            .enumerate()
            .filter_map(|(i, row)| row.ratios[s].map(|r| (i, r)))
            .map(|(i, r)| {
                let x0 = i as f64 + 0.1 + s as f64 * bar;
                Rectangle::new([(x0, 0.0), (x0 + bar * 0.9, r.min(y_max))], colour.filled())
            })
            .collect();
        chart
            .draw_series(bars)
            .map_err(|e| err(&e))?
            .label(*label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    for &(level, colour) in style.levels {
        chart
            .draw_series(LineSeries::new(
                [(0.0, level), (n as f64, level)],
                colour.stroke_width(1),
            ))
            .map_err(|e| err(&e))?
            .label(format!("{level:.2}x"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 12, y)], colour));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| err(&e))?;

    // Kernel names under their groups, and each bar's value above it (or "n/a").
    let name_style = TextStyle::from((FONT, 14).into_font()).color(&BLACK);
    let value_style = TextStyle::from((FONT, 11).into_font()).color(&BLACK);
    for (i, row) in table.rows.iter().enumerate() {
        let (cx, base) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        let (w, _) = root
            .estimate_text_size(&row.kernel, &name_style)
            .map_err(|e| err(&e))?;
        root.draw(&Text::new(
            row.kernel.clone(),
            (cx - w as i32 / 2, base + 10),
            name_style.clone(),
        ))
        .map_err(|e| err(&e))?;
        for (s, ratio) in row.ratios.iter().enumerate() {
            let x = i as f64 + 0.1 + (s as f64 + 0.45) * bar;
            let (text, top) = match ratio {
                Some(r) => (format!("{r:.2}"), r.min(y_max)),
                None => ("n/a".to_string(), 0.0),
            };
            let (px, py) = chart.backend_coord(&(x, top));
            let (w, h) = root
                .estimate_text_size(&text, &value_style)
                .map_err(|e| err(&e))?;
            root.draw(&Text::new(
                text,
                (px - w as i32 / 2, py - h as i32 - 2),
                value_style.clone(),
            ))
            .map_err(|e| err(&e))?;
        }
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape bench/report_simt.py prints (abridged).
    const SAMPLE: &str = "\
cudajit SIMT benchmark suite, 2026-11-23 14:00:00 UTC
commit: 0123456789abcdef
device (name, driver, memory, pstate, SM clock, memory clock, temperature): NVIDIA H100 80GB HBM3

SIMT kernels: median us of event-timed launches; ratios against nvcc -O3 -arch=sm_90
kernel          nvcc_us    cj_us      nochk_us   numba_us   ref_us     ref     cj/nvcc  nochk/nvcc numba/nvcc cj/ref  GB/s    TFLOP/s %copy  %copy_nvcc bars
copy_kernel     180.000    181.000    180.000    182.000    -          -       1.006    1.000      1.011      -       2966.1  -       99.4   99.9       cj<=1.05x:ok
sum_shared      380.000    385.000    379.000    1250.000   365.000    cupy    1.013    0.997      3.289      1.055   2788.9  -       93.5   94.7       cj<=1.05x:ok,<=1.05x_cupy:FAIL
sgemm           3000.000   -          -          9000.000   2700.000   cublas  -        -          3.000      -       -       -       -      -          cj<=1.05x:-
nvcc sgemm_tuned (beyond the subset): 2800.000 us

Bars
  PASS    sum_shared: cj<=1.05x: 1.013
";

    #[test]
    fn parses_the_report_table() {
        let t = parse(SAMPLE).unwrap();
        assert_eq!(t.title[1], "commit: 0123456789abcdef");
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[1].kernel, "sum_shared");
        assert_eq!(
            t.rows[1].ratios,
            vec![Some(1.013), Some(0.997), Some(3.289)]
        );
        assert_eq!(t.rows[2].ratios, vec![None, None, Some(3.0)]);
    }

    /// The shape bench/report_hl.py prints (abridged).
    const HL_SAMPLE: &str = "\
cudajit high-level operations benchmark, 2026-11-25 19:00:00 UTC
commit: 0123456789abcdef

High-level operations, 2^28 elements: median us of 20 event-timed calls
op                    cj_us ref          ref_us  cj/ref    GB/s  %copy  bars
saxpy.vectorize    1174.176 written    1177.152   0.997    2743      -  <=1.05x_written:ok
sum.device          355.000 cupy        373.000   0.952    3024      -  <=1.05x_cupy:ok
scan.alloc         1200.000 cupy              -       -    1789   59.9  -

Bars
";

    #[test]
    fn parses_and_draws_the_hl_table() {
        let t = parse_as(HL_SAMPLE, &HL).unwrap();
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[1].kernel, "sum.device");
        assert_eq!(t.rows[1].ratios, vec![Some(0.952)]);
        assert_eq!(t.rows[2].ratios, vec![None]);
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("hl.png");
        draw_as(&t, &png, &HL).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert!(bytes.len() > 5_000, "PNG of {} bytes", bytes.len());
    }

    /// The shape bench/report_tc.py prints (abridged).
    const TC_SAMPLE: &str = "\
cudajit tensor-core benchmark, 2026-11-29 00:30:00 UTC
commit: 0123456789abcdef

Tensor-core kernels: median us of event-timed launches
tc_kernel        nvcc_us    cj_us      nochk_us   lib     lib_us     nvcc_TF  cj_TF    lib_TF   cj/nvcc  nochk/nvcc lib/nvcc %lib   %lib_nvcc bars
gemm_bf16_8192   2646.0     2700.0     2650.0     cublas  1337.9     415.5    407.2    821.8    1.020    1.002      0.506    49.6   50.6      cj<=1.05x:ok
attention_d128   3502.1     -          -          flash   3078.4     314.0    -        357.2    -        -          0.879    -      87.9      cj<=1.05x:-

Bars
";

    #[test]
    fn parses_and_draws_the_tc_table() {
        let t = parse_as(TC_SAMPLE, &TC).unwrap();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0].kernel, "gemm_bf16_8192");
        assert_eq!(
            t.rows[0].ratios,
            vec![Some(1.020), Some(1.002), Some(0.506)]
        );
        assert_eq!(t.rows[1].ratios, vec![None, None, Some(0.879)]);
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("tc.png");
        draw_as(&t, &png, &TC).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert!(bytes.len() > 5_000, "PNG of {} bytes", bytes.len());
    }

    /// The plain block bench/run_multi.sh prints after its markdown table.
    const MULTI_SAMPLE: &str = "\
| row | cudajit | reference | ratio | bar |
| peer_copy_1GiB | 394.9 GB/s | PyTorch 387.5 GB/s | 1.019 | >= 0.95 met |

multi_row                       cudajit  reference   cj/ref
peer_copy_1GiB                  394.900    387.500    1.019
nbody_scaling                     1.921      2.000    0.961

";

    #[test]
    fn parses_and_draws_the_multi_gpu_table() {
        let t = parse_as(MULTI_SAMPLE, &MULTI).unwrap();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1].kernel, "nbody_scaling");
        assert_eq!(t.rows[0].ratios, vec![Some(1.019)]);
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("multi.png");
        draw_as(&t, &png, &MULTI).unwrap();
        assert!(std::fs::read(&png).unwrap().len() > 5_000);
    }

    /// The launch block bench/report.py prints (a missing floor is `-`).
    const LAUNCH_SAMPLE: &str = "\
cudajit vecadd benchmark, 2026-11-30 17:40:03 UTC
commit: 2d0c1d9

Launch over bare cuLaunchKernel on the same stream(s), paired rounds; floor: the
best bare program for the row (`cargo xtask chart-launch` draws this table)
launch_row      cj/bare floor/bare
created           1.052      0.988
default           1.047          -
alternating       1.316      1.213

Same stream kind (information)
";

    #[test]
    fn parses_and_draws_the_launch_table() {
        let t = parse_as(
            &format!("# a results file's comment\n\n{LAUNCH_SAMPLE}"),
            &LAUNCH,
        )
        .unwrap();
        assert_eq!(
            t.title[0],
            "cudajit vecadd benchmark, 2026-11-30 17:40:03 UTC"
        );
        let names: Vec<&str> = t.rows.iter().map(|r| r.kernel.as_str()).collect();
        assert_eq!(names, ["created", "default", "alternating"]);
        assert_eq!(t.rows[0].ratios, vec![Some(1.052), Some(0.988)]);
        assert_eq!(t.rows[1].ratios, vec![Some(1.047), None]);
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("launch.png");
        draw_as(&t, &png, &LAUNCH).unwrap();
        assert!(std::fs::read(&png).unwrap().len() > 5_000);
    }

    #[test]
    fn rejects_text_without_a_table() {
        assert!(parse("no table here\n").is_err());
        let no_column = "kernel nvcc_us\ncopy 1.0\n";
        assert!(parse(no_column).unwrap_err().contains("cj/nvcc"));
    }

    #[test]
    fn renders_a_png_without_system_fonts() {
        let t = parse(SAMPLE).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("simt.png");
        draw(&t, &png).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        // A drawn chart, not a blank canvas: white compresses to a few hundred bytes.
        assert!(bytes.len() > 5_000, "PNG of {} bytes", bytes.len());
    }
}
