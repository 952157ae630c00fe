//! `memconform mutate list`'s output: counts per operator and class and
//! the sites (text), or one row per mutant (CSV).

use std::collections::BTreeSet;

use super::ops::{CLASSES, OPERATORS};
use super::Mutant;

/// The class before any `+tag` (`tier1+needs:o3` → `tier1`).
fn base_class(class: &str) -> &str {
    class.split('+').next().unwrap_or(class)
}

/// The text listing: a header, a table of counts (operator × class) and one
/// line per mutant (`id op class file:line descriptor`, with the catalogue
/// name first when given).
pub fn text(protocol: &str, classes: &[String], mutants: &[(Option<String>, Mutant)]) -> String {
    let files: BTreeSet<&str> = mutants.iter().map(|(_, m)| m.file.as_str()).collect();
    let mut out = format!(
        "{protocol}: {} mutants in {} files (classes: {})\n\n",
        mutants.len(),
        files.len(),
        classes.join(",")
    );
    let present: Vec<&str> = CLASSES
        .iter()
        .map(|c| c.0)
        .filter(|c| mutants.iter().any(|(_, m)| base_class(&m.class) == *c))
        .collect();
    out.push_str(&format!("{:<12}", "operator"));
    for c in &present {
        out.push_str(&format!(" {c:>10}"));
    }
    out.push_str(&format!(" {:>10}\n", "total"));
    let count = |op: Option<&str>, class: Option<&str>| {
        mutants
            .iter()
            .filter(|(_, m)| op.is_none_or(|o| m.op == o))
            .filter(|(_, m)| class.is_none_or(|c| base_class(&m.class) == c))
            .count()
    };
    for (op, _, _) in OPERATORS {
        let total = count(Some(op), None);
        if total == 0 {
            continue;
        }
        out.push_str(&format!("{op:<12}"));
        for c in &present {
            out.push_str(&format!(" {:>10}", count(Some(op), Some(c))));
        }
        out.push_str(&format!(" {total:>10}\n"));
    }
    out.push_str(&format!("{:<12}", "total"));
    for c in &present {
        out.push_str(&format!(" {:>10}", count(None, Some(c))));
    }
    out.push_str(&format!(" {:>10}\n\n", mutants.len()));
    for (name, m) in mutants {
        if let Some(n) = name {
            out.push_str(&format!("{n:<6} "));
        }
        let file = m.file.rsplit('/').next().unwrap_or(&m.file);
        out.push_str(&format!(
            "{}  {:<11} {:<15} {}:{}  {}\n",
            m.id, m.op, m.class, file, m.line, m.descriptor
        ));
    }
    out
}

/// The CSV listing: `id,operator,class,file,line,site,descriptor` (with a
/// leading `name` column for the catalogue).
pub fn csv(mutants: &[(Option<String>, Mutant)]) -> String {
    let named = mutants.iter().any(|(n, _)| n.is_some());
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "id",
        "operator",
        "class",
        "file",
        "line",
        "site",
        "descriptor",
    ];
    if named {
        header.insert(0, "name");
    }
    // writing to a Vec cannot fail
    let _ = w.write_record(&header);
    for (name, m) in mutants {
        let line = m.line.to_string();
        let mut row = vec![
            m.id.as_str(),
            m.op.as_str(),
            m.class.as_str(),
            m.file.as_str(),
            line.as_str(),
            m.site.as_str(),
            m.descriptor.as_str(),
        ];
        if named {
            row.insert(0, name.as_deref().unwrap_or(""));
        }
        let _ = w.write_record(&row);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
