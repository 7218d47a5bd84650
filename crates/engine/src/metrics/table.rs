//! Columnar results: the engine's only output. One `Table` per kind of thing (flows, incasts,
//! queues, hosts, ports); the Python layer turns each column into an Arrow array without
//! copying row by row. Column names carry their unit (`fct_ps`, `size_bytes`).

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    U32(Vec<u32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    /// Values that may be missing: work that did not finish by the end of the run has no
    /// completion time, and a 0 there would read as one (Arrow: a nullable column).
    OptU64(Vec<Option<u64>>),
    OptF64(Vec<Option<f64>>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::OptU64(v) => v.len(),
            Column::OptF64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new(name: &str) -> Self {
        Table { name: name.to_string(), columns: Vec::new() }
    }

    pub fn push(&mut self, name: &str, column: Column) -> &mut Self {
        debug_assert!(self.columns.first().is_none_or(|(_, c)| c.len() == column.len()));
        self.columns.push((name.to_string(), column));
        self
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Results {
    pub tables: Vec<Table>,
    /// Scalars about the run: events, packet-hops, simulated end time, ...
    pub summary: Vec<(String, f64)>,
}

impl Results {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    pub fn scalar(&self, name: &str) -> Option<f64> {
        self.summary.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}
