//! One kernel run as every reader hands it out (kernel CSVs, profiler databases, traces): the
//! fields of `kernel_details.csv`, each optional where a source may lack it.

/// The longest kernel name, op type or core type kept whole (4 KiB; real ones are under 200
/// bytes).
pub const MAX_NAME: usize = 4 << 10;

/// A name, op type or core type from a profile as kept: cut to [`MAX_NAME`] when longer
/// ([`crate::text::bounded`]: its start, a hash, its end), so one huge field cannot multiply
/// into gigabytes as it is copied into tables and outputs.
pub fn kept_name(text: &str) -> String {
    crate::text::bounded(text, MAX_NAME).unwrap_or_else(|| text.to_string())
}

/// One kernel run, borrowed from the reader's buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelRow<'r> {
    /// `Step Id`, when the file has one.
    pub step: Option<&'r str>,
    /// `Name` / `Op Name`: the graph op's name (in graph mode) or the aclnn chain.
    pub name: &'r str,
    /// `Type` / `OP Type` (`N/A` with op_summary's `--task-time=l0`).
    pub op_type: &'r str,
    /// `Accelerator Core` / `Task Type`: `AI_CORE`, `MIX_AIC`, `COMMUNICATION`…
    pub core_type: &'r str,
    /// `Start Time(us)`, when given.
    pub start_us: Option<f64>,
    /// `Duration(us)`, when given (`N/A` leaves it out).
    pub duration_us: Option<f64>,
    /// The start, exactly, in ns (from the decimal text).
    pub start_ns: Option<i64>,
    /// The duration, exactly, in ns.
    pub duration_ns: Option<i64>,
    /// `Device_id`, when given.
    pub device: Option<&'r str>,
    /// `Model ID`, when given.
    pub model: Option<&'r str>,
    /// `Iteration Id`, when given (a step, when the file has no `Step Id`).
    pub iteration: Option<&'r str>,
    /// `Wait Time(us)`, when given.
    pub wait_us: Option<f64>,
    /// `Block Num` / `Block Dim`, when given.
    pub block_num: Option<u32>,
    /// `Input Shapes` without the writer's inner quotes, when given.
    pub input_shapes: Option<&'r str>,
    /// `Stream ID`, when given (`N/A` for communication rows).
    pub stream: Option<&'r str>,
    /// `aicore_time(us)` or, without it, `aiv_time(us)`: the time the cores ran, when the
    /// profile has the PMU metrics.
    pub core_us: Option<f64>,
}

/// True for a communication kernel: core type `HCCL` or `COMMUNICATION`, or an op type of the
/// HCCL family (`HcomAllReduce`, `hcom_broadcast_`, `HcclAllreduce`…), which also covers the
/// AI CPU tasks of communication ops.
pub fn is_communication(op_type: &str, core_type: &str) -> bool {
    let core_comm =
        core_type.eq_ignore_ascii_case("HCCL") || core_type.eq_ignore_ascii_case("COMMUNICATION");
    let lower = op_type.to_ascii_lowercase();
    core_comm || lower.starts_with("hcom") || lower.starts_with("hccl")
}
