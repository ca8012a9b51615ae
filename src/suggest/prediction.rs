//! Predictions made before a compile, and checked after it: what each SuperKernel of a plan
//! is predicted to save per step (the saving model on the gaps of the profile without
//! SuperKernel, fitted on a pair when one is loaded), recorded with the run that compiles the
//! plan, then set beside what that run measured — the account's row of each SuperKernel and
//! its payoff — so a user sees whether skope's foresight came true, SuperKernel by SuperKernel.

use crate::profile::account::Account;
use crate::profile::figures::{delta_micros, fixed};
use crate::profile::output::table;
use crate::profile::payoff::{PayoffClass, Payoffs};
use crate::text::sanitize;
use serde::{Deserialize, Serialize};

/// A SuperKernel's measured saving below which its error in percent says nothing (µs a step):
/// the fidelity harness's floor too.
pub const MEASURABLE_US: f64 = 2.0;

/// A predicted saving's range and the class it makes: beneficial when the whole range saves,
/// regressed when the whole range costs, neutral when it holds zero.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The least saving per step, µs.
    pub low_us: f64,
    /// The most, µs.
    pub high_us: f64,
    /// The class.
    pub class: PayoffClass,
}

/// The range of a saving of `saving_us` a step whose gain (before the serial loss, which is
/// measured) is `gain_us`, the model's error being `error_per_run` µs a run over `per_step`
/// runs a step — or, with assumed coefficients (`None`), the gain itself.
pub fn range(saving_us: f64, gain_us: f64, per_step: f64, error_per_run: Option<f64>) -> Range {
    let error = error_per_run.map_or(gain_us.abs(), |e| e * per_step);
    let (low_us, high_us) = (saving_us - error, saving_us + error);
    let class = if high_us < 0.0 {
        PayoffClass::Regressed
    } else if low_us > 0.0 {
        PayoffClass::Beneficial
    } else {
        PayoffClass::Neutral
    };
    Range {
        low_us,
        high_us,
        class,
    }
}

/// What a plan's SuperKernels are predicted to save, as recorded with a run (`run.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanPrediction {
    /// What the predictions rest on, in words: the fit and its error, or assumed coefficients.
    pub basis: String,
    /// True when the model was fitted on a profile pair.
    pub fitted: bool,
    /// The profile without SuperKernel whose gaps were read.
    pub profile: String,
    /// Each SuperKernel whose sub-ops that profile timed, in plan order.
    pub superkernels: Vec<SuperKernelPrediction>,
    /// SuperKernels of the plan left unpredicted: a sub-op that profile never ran.
    pub unpredicted: Vec<String>,
}

impl PlanPrediction {
    /// The prediction in one line: the SuperKernels, their saving in all, their classes.
    pub fn words(&self) -> String {
        let count = |class| {
            self.superkernels
                .iter()
                .filter(|p| p.class == class)
                .count()
        };
        let total: f64 = self.superkernels.iter().map(|p| p.saving_us).sum();
        let unpredicted = match self.unpredicted.len() {
            0 => String::new(),
            n => format!("; {n} not predicted (a sub-op the profile never ran)"),
        };
        format!(
            "the current plan's {} SuperKernel(s), predicted: {total:.1} µs a step saved in all, \
             {} beneficial, {} neutral, {} regressed{unpredicted} (with {}); a run of the plan \
             records this, and comparing its profile sets it beside what it measured",
            self.superkernels.len(),
            count(PayoffClass::Beneficial),
            count(PayoffClass::Neutral),
            count(PayoffClass::Regressed),
            self.basis
        )
    }
}

/// One SuperKernel's prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuperKernelPrediction {
    /// Its segment.
    pub segment: String,
    /// Its kernel's name (the fused node).
    pub fused_node: String,
    /// Its saving per step, µs (negative: it costs time).
    pub saving_us: f64,
    /// The least saving the prediction allows, µs a step.
    pub low_us: f64,
    /// The most, µs a step.
    pub high_us: f64,
    /// The payoff predicted.
    pub class: PayoffClass,
}

/// A prediction beside what the run measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    /// The run whose record holds the prediction (its directory).
    pub run: String,
    /// What the predictions rested on.
    pub basis: String,
    /// Each SuperKernel predicted, in the prediction's order.
    pub superkernels: Vec<CheckedSuperKernel>,
    /// The mean of the errors in percent over the SuperKernels that saved (or cost) at least
    /// [`MEASURABLE_US`] a step; `None` when none did.
    pub mean_error_pct: Option<f64>,
    /// How many SuperKernels that mean is over.
    pub measurable: usize,
    /// Of the SuperKernels judged by the run, how many were judged as predicted, and how many
    /// were judged.
    pub classes_right: (usize, usize),
    /// Each SuperKernel's place in `superkernels`, by its node: looked up for each row the
    /// profile view draws.
    #[serde(skip)]
    places: foldhash::HashMap<String, usize>,
}

/// One SuperKernel's prediction beside its measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckedSuperKernel {
    /// What was predicted.
    pub predicted: SuperKernelPrediction,
    /// What it saved per step, µs: its row of the account's waterfall, negated; `None` when
    /// the run did not build it (no kernel of its name ran).
    pub measured_us: Option<f64>,
    /// Its payoff as judged on the run.
    pub payoff: Option<PayoffClass>,
    /// `|predicted − measured| / |measured|` in percent, when it saved at least
    /// [`MEASURABLE_US`] a step.
    pub error_pct: Option<f64>,
}

impl CheckedSuperKernel {
    /// The predicted change of the step time, as the account's rows give a change:
    /// `▼ −12.30`.
    pub fn predicted_delta(&self) -> String {
        delta_micros(delta_ns(self.predicted.saving_us))
    }

    /// The range of the predicted change, low to high: `−15.60 … −9.00`, `−1.20 … +3.00`.
    pub fn range(&self) -> String {
        let end = |saving_us: f64| match fixed(-saving_us, 2) {
            zero if zero == "0.00" => zero,
            cost if saving_us < 0.0 => format!("+{cost}"),
            saved => saved.replacen('-', "−", 1),
        };
        format!(
            "{} … {}",
            end(self.predicted.high_us),
            end(self.predicted.low_us)
        )
    }

    /// The error in a cell: `12 %`, or `—` when it saved too little to say.
    pub fn error(&self) -> String {
        self.error_pct
            .map_or("—".to_string(), |e| format!("{} %", fixed(e, 0)))
    }
}

/// A saving in µs as the account's change in ns (new − base).
fn delta_ns(saving_us: f64) -> i64 {
    (-saving_us * 1000.0).round() as i64
}

/// `checked` as a text table beside the comparison's: each SuperKernel's predicted change of
/// the step time and its range, the change measured (its row of the account), the error, the
/// payoff predicted and judged.
pub fn to_text(checked: &Checked) -> String {
    let mut out = format!(
        "\npredicted before the compile · recorded with the run in {} · Δ/step µs as the \
         account gives it (▼ saves time)\n",
        sanitize(&checked.run)
    );
    let mut rows = vec![
        [
            "superkernel",
            "predicted Δ/step",
            "range",
            "measured Δ/step",
            "error",
            "predicted",
            "judged",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for c in &checked.superkernels {
        let judged = match c.payoff {
            Some(p) if p == c.predicted.class => format!("{} ✓", p.words()),
            Some(p) => format!("{} ✗", p.words()),
            None if c.measured_us.is_none() => "not built".to_string(),
            None => "—".to_string(),
        };
        rows.push(vec![
            sanitize(&c.predicted.segment).into_owned(),
            c.predicted_delta(),
            c.range(),
            c.measured_us
                .map_or("—".to_string(), |m| delta_micros(delta_ns(m))),
            c.error(),
            c.predicted.class.words().to_string(),
            judged,
        ]);
    }
    table(
        &mut out,
        "  ",
        &rows,
        &[false, true, true, true, true, false, false],
    );
    out.push_str(&format!("  {}\n", sanitize(&checked.summary())));
    out
}

impl Checked {
    /// The check in one line: how many came true, and the mean error.
    pub fn summary(&self) -> String {
        let error = match self.mean_error_pct {
            Some(e) => format!(
                "mean error {e:.1} % over the {} saving {MEASURABLE_US:.0} µs a step or more",
                self.measurable
            ),
            None => format!("none saved {MEASURABLE_US:.0} µs a step or more"),
        };
        format!(
            "{} SuperKernels predicted before the compile; {} of {} judged as predicted; {error} \
             (predicted with {})",
            self.superkernels.len(),
            self.classes_right.0,
            self.classes_right.1,
            self.basis
        )
    }

    /// The check in a table cell: `12/13 as judged, 14.9 % off` reads as SuperKernels judged
    /// as predicted, of those judged, and the mean error.
    pub fn cell(&self) -> String {
        let (right, judged) = self.classes_right;
        match self.mean_error_pct {
            Some(e) => format!("{right}/{judged} as judged, {} % off", fixed(e, 1)),
            None => format!("{right}/{judged} as judged"),
        }
    }

    /// The row of the SuperKernel whose kernel is `fused_node`.
    pub fn of(&self, fused_node: &str) -> Option<&CheckedSuperKernel> {
        self.superkernels.get(*self.places.get(fused_node)?)
    }
}

/// `prediction`, recorded with the run in `run`, beside what that run measured: the `account`
/// of its time against the profile without SuperKernel, and its SuperKernels' `payoffs`.
pub fn check(
    (prediction, run): (&PlanPrediction, &str),
    account: &Account,
    payoffs: Option<&Payoffs>,
) -> Checked {
    let judged_list = payoffs.map_or(&[][..], |list| &list.list[..]);
    let payoff_at = crate::profile::first_places(
        (judged_list.iter().enumerate()).map(|(i, x)| (i, x.fused_node.as_str())),
    );
    let superkernels: Vec<CheckedSuperKernel> = prediction
        .superkernels
        .iter()
        .map(|p| {
            let judged = payoff_at
                .get(p.fused_node.as_str())
                .map(|&i| &judged_list[i]);
            // A SuperKernel the run did not build has no measurement, only its sub-ops' time.
            let built = judged.is_none_or(|x| x.new.is_some_and(|n| n.count > 0));
            let measured_us = account
                .superkernel(&p.fused_node)
                .filter(|_| built)
                .map(|part| -part.delta_ns as f64 / 1000.0);
            let payoff = judged
                .map(|x| x.class)
                .filter(|c| *c != PayoffClass::InsufficientEvidence);
            let error_pct = measured_us
                .filter(|m| m.abs() >= MEASURABLE_US)
                .map(|m| (p.saving_us - m).abs() / m.abs() * 100.0);
            CheckedSuperKernel {
                predicted: p.clone(),
                measured_us,
                payoff,
                error_pct,
            }
        })
        .collect();
    let errors: Vec<f64> = superkernels.iter().filter_map(|c| c.error_pct).collect();
    let judged: Vec<&CheckedSuperKernel> =
        superkernels.iter().filter(|c| c.payoff.is_some()).collect();
    let right = judged
        .iter()
        .filter(|c| c.payoff == Some(c.predicted.class))
        .count();
    Checked {
        run: run.to_string(),
        basis: prediction.basis.clone(),
        mean_error_pct: (!errors.is_empty())
            .then(|| errors.iter().sum::<f64>() / errors.len() as f64),
        measurable: errors.len(),
        classes_right: (right, judged.len()),
        places: crate::profile::first_places(
            (superkernels.iter().enumerate()).map(|(i, c)| (i, c.predicted.fused_node.clone())),
        ),
        superkernels,
    }
}
