//! Rust source lines interleaved with a kernel's NVVM IR, PTX and SASS, for
//! [`crate::inspect`] and `CUDAJIT_DUMP`: before the instructions of each Rust line,
//! a comment `// examples/foo.rs:12: let i = grid(1);`. The lines come from the
//! kernel's own [`FnSource`] text (which keeps every token on its line), so no source
//! file need be present where the kernel runs.

use std::collections::{BTreeMap, HashMap, HashSet};

use kernel_device::source::FnSource;

/// The Rust text of every line of a kernel and the device functions it calls, by
/// file and line.
#[derive(Clone, Debug, Default)]
pub struct SourceLines {
    by_file: HashMap<String, BTreeMap<u32, String>>,
}

impl SourceLines {
    /// The lines of `source` and of every device function it reaches.
    pub fn of(source: &FnSource) -> SourceLines {
        let mut lines = SourceLines::default();
        let mut pending = vec![source];
        let mut seen = HashSet::new();
        while let Some(s) = pending.pop() {
            if !seen.insert((s.file, s.line, s.name)) {
                continue;
            }
            let file = lines.by_file.entry(s.file.to_string()).or_default();
            for (k, text) in s.text.lines().enumerate() {
                let text = text.trim();
                if !text.is_empty() {
                    file.insert(s.line + k as u32, text.to_string());
                }
            }
            pending.extend(s.deps.iter().copied());
        }
        lines
    }

    /// The text of `line` of `file` (matched by path, else by file name).
    pub fn line(&self, file: &str, line: u32) -> Option<&str> {
        let lines = self.by_file.get(file).or_else(|| {
            let name = file.rsplit('/').next()?;
            self.by_file
                .iter()
                .find(|(path, _)| path.rsplit('/').next() == Some(name))
                .map(|(_, lines)| lines)
        })?;
        lines.get(&line).map(String::as_str)
    }

    /// The comment that introduces `line` of `file`.
    fn comment(&self, file: &str, line: u32) -> String {
        match self.line(file, line) {
            Some(text) => format!("// {file}:{line}: {text}"),
            None => format!("// {file}:{line}"),
        }
    }
}

/// `ptx` with a comment naming each Rust line before its instructions (read from the
/// `.loc`/`.file` directives of line tables or full debug information).
pub fn ptx_with_rust_lines(ptx: &str, sources: &SourceLines) -> String {
    let files = ptx_files(ptx);
    let mut out = String::with_capacity(ptx.len() * 2);
    let mut shown: Option<(u32, u32)> = None;
    for line in ptx.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with(".visible .entry")
            || trimmed.starts_with(".entry")
            || trimmed.contains(".func ")
        {
            shown = None;
        }
        if let Some((file, row)) = parse_loc(trimmed) {
            if row != 0 && shown != Some((file, row)) {
                if let Some(path) = files.get(&file) {
                    out.push('\t');
                    out.push_str(&sources.comment(path, row));
                    out.push('\n');
                }
                shown = Some((file, row));
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `.file N "path"` directives: file number → path.
fn ptx_files(ptx: &str) -> HashMap<u32, String> {
    ptx.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix(".file")?;
            let mut parts = rest.trim_start().splitn(2, char::is_whitespace);
            let number = parts.next()?.parse().ok()?;
            let path = parts.next()?.trim().trim_start_matches('"');
            let path = path.split('"').next()?;
            Some((number, path.to_string()))
        })
        .collect()
}

/// `.loc F L C` → (F, L).
fn parse_loc(line: &str) -> Option<(u32, u32)> {
    let mut words = line.strip_prefix(".loc")?.split_whitespace();
    Some((words.next()?.parse().ok()?, words.next()?.parse().ok()?))
}

/// NVVM IR with a comment naming each Rust line before its instructions (read from
/// the `!dbg` locations, when the IR has them).
pub fn ir_with_rust_lines(ir: &str, sources: &SourceLines) -> String {
    let nodes: HashMap<&str, &str> = ir
        .lines()
        .filter_map(|l| {
            let (id, text) = l.split_once(" = ")?;
            id.starts_with('!').then_some((id, text))
        })
        .collect();
    let field = |text: &str, name: &str| -> Option<String> {
        let at = text.find(&format!("{name}: "))? + name.len() + 2;
        let rest = &text[at..];
        Some(match rest.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next()?.to_string(),
            None => rest.split([',', ')']).next()?.trim().to_string(),
        })
    };
    // A location's (file path, line): its scope's file.
    let place = |location: &str| -> Option<(String, u32)> {
        let text = nodes.get(location)?;
        let line = field(text, "line")?.parse().ok()?;
        let scope = nodes.get(field(text, "scope")?.as_str())?;
        let file = nodes.get(field(scope, "file")?.as_str())?;
        let name = field(file, "filename")?;
        let path = match field(file, "directory").filter(|d| !d.is_empty() && d != ".") {
            Some(dir) => format!("{dir}/{name}"),
            None => name,
        };
        Some((path, line))
    };
    let mut out = String::with_capacity(ir.len() * 2);
    let mut shown: Option<(String, u32)> = None;
    for line in ir.lines() {
        if line.starts_with("define ") {
            shown = None;
        }
        let location = line
            .rsplit_once("!dbg ")
            .filter(|_| !line.starts_with("define "))
            .map(|(_, id)| id.trim());
        if let Some(here) = location.and_then(place) {
            if shown.as_ref() != Some(&here) {
                out.push_str("  ; ");
                out.push_str(sources.comment(&here.0, here.1).trim_start_matches("// "));
                out.push('\n');
                shown = Some(here);
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `nvdisasm --print-line-info` output with its `//## File "path", line N` comments
/// replaced by the Rust line's text.
pub fn sass_with_rust_lines(sass: &str, sources: &SourceLines) -> String {
    let mut out = String::with_capacity(sass.len() * 2);
    for line in sass.lines() {
        let parsed = line
            .trim_start()
            .strip_prefix("//## File \"")
            .and_then(|rest| {
                let (path, rest) = rest.split_once('"')?;
                let number = rest.split("line ").nth(1)?;
                let number: String = number.chars().take_while(char::is_ascii_digit).collect();
                Some((path, number.parse::<u32>().ok()?))
            });
        match parsed {
            Some((path, row)) => {
                out.push_str("        ");
                out.push_str(&sources.comment(path, row));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> SourceLines {
        let mut lines = SourceLines::default();
        let file = lines.by_file.entry("examples/k.rs".into()).or_default();
        file.insert(12, "let i = grid(1);".into());
        file.insert(13, "out[i] = 2.0 * a[i];".into());
        lines
    }

    #[test]
    fn ptx_gets_each_rust_line_once_before_its_instructions() {
        let ptx = "\
.visible .entry k(\n{\n\t.loc\t1 12 13\n\tmov.u32 %r1, %tid.x;\n\t.loc\t1 12 9\n\
\tcvt.u64.u32 %rd1, %r1;\n\t.loc\t1 13 5\n\tst.global.f32 [%rd2], %f1;\n\t.loc\t1 99 1\n\
\tret;\n}\n\t.file\t1 \"examples/k.rs\"\n";
        let out = ptx_with_rust_lines(ptx, &sources());
        let comments: Vec<&str> = out
            .lines()
            .filter(|l| l.trim_start().starts_with("// "))
            .map(str::trim)
            .collect();
        assert_eq!(
            comments,
            [
                "// examples/k.rs:12: let i = grid(1);",
                "// examples/k.rs:13: out[i] = 2.0 * a[i];",
                "// examples/k.rs:99",
            ]
        );
        // Every original line is kept, in order.
        let kept: Vec<&str> = out
            .lines()
            .filter(|l| !l.trim_start().starts_with("// "))
            .collect();
        assert_eq!(kept, ptx.lines().collect::<Vec<_>>());
        // The comment comes right before the line's first directive.
        let at = out.find("// examples/k.rs:13").unwrap();
        assert!(out[at..].lines().nth(1).unwrap().contains(".loc\t1 13 5"));
    }

    #[test]
    fn ir_and_sass_name_the_rust_lines() {
        let ir = "define void @k() !dbg !5 {\nentry:\n  %t = call i32 @tid(), !dbg !7\n\
  store float %v, float* %p, !dbg !8\n  ret void, !dbg !8\n}\n\
!4 = !DIFile(filename: \"k.rs\", directory: \"examples\")\n\
!5 = distinct !DISubprogram(name: \"k\", scope: !4, file: !4, line: 11)\n\
!7 = !DILocation(line: 12, column: 13, scope: !5)\n\
!8 = !DILocation(line: 13, column: 5, scope: !5)\n";
        let out = ir_with_rust_lines(ir, &sources());
        let comments: Vec<&str> = out.lines().filter(|l| l.starts_with("  ; ")).collect();
        assert_eq!(
            comments,
            [
                "  ; examples/k.rs:12: let i = grid(1);",
                "  ; examples/k.rs:13: out[i] = 2.0 * a[i];",
            ]
        );
        let sass =
            "        //## File \"examples/k.rs\", line 13\n        /*0040*/ STG.E [R2.64], R5 ;\n";
        let out = sass_with_rust_lines(sass, &sources());
        assert!(out.starts_with("        // examples/k.rs:13: out[i] = 2.0 * a[i];\n"));
        assert!(out.contains("STG.E"));
    }
}
