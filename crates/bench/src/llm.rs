//! The opt-in language-model agent (`pace bench --llm URL`): a chat-completions model judges
//! each task's prompt and proposed transaction, and the PACE-rs verifier judges the same
//! transaction whatever the model said. A trial executes only if both approve, through a PDR
//! signed behind the verifier, exactly as `pace_full`'s do. Its trials form their own study:
//! they never enter Table 1 or the default `trials.csv`.

use crate::agents::{Agent, DecisionInput, ExecPath, PdrVerifier, PolicyAgent, Verdict};
use crate::record::{AgentId, Reason};
use crate::tasks::Task;
use pace_llm::{LlmAgent, LlmConfig, TaskContext, TraceLog};
use std::{path::PathBuf, time::Instant};

/// The opt-in model study: which model, and where to trace its exchanges.
#[derive(Clone, Debug)]
pub struct LlmStudy {
    /// The endpoint, key and model.
    pub model: LlmConfig,
    /// A JSON-lines file every exchange is appended to.
    pub trace: Option<PathBuf>,
}

impl LlmStudy {
    /// The model's client, tracing if asked. Fails on a base URL it cannot use or a trace
    /// file it cannot open.
    pub fn model(&self) -> pace_llm::Result<LlmAgent> {
        let model = LlmAgent::new(self.model.clone())?;
        Ok(match &self.trace {
            Some(path) => model.with_trace(TraceLog::open(path)?),
            None => model,
        })
    }
}

/// A model behind the PACE-rs verifier (`pace_full`'s checks, path and PDR options).
#[derive(Debug)]
pub struct LlmGuard {
    model: LlmAgent,
    guard: PolicyAgent,
}

impl LlmGuard {
    /// `model` guarded by PACE-rs on the world at `addrs`.
    pub fn new(model: LlmAgent, addrs: pace_world::Addresses) -> Self {
        Self {
            model,
            guard: PolicyAgent::pace_full(addrs).named(AgentId::Llm),
        }
    }
}

impl Agent for LlmGuard {
    fn id(&self) -> AgentId {
        AgentId::Llm
    }

    /// The model sees the prompt and the transaction that would execute (both untrusted);
    /// an answer other than an approval, or no answer, rejects. The verifier always runs,
    /// and never sees the model's answer. (An intent the model proposes instead is ignored:
    /// the benchmark executes the task's bytes.)
    fn decide(&self, input: &DecisionInput<'_>) -> Verdict {
        let start = Instant::now();
        let context = TaskContext {
            task_id: input.task.id.to_owned(),
            intent: Some(input.intent.clone()),
            notes: Vec::new(),
        };
        let mut reasons = match self.model.propose(&input.task.prompt, &context) {
            Ok(answer) if answer.decision.approves() => Vec::new(),
            Ok(_) => vec![Reason::ModelRejected],
            Err(_) => vec![Reason::ModelUnavailable],
        };
        reasons.extend(self.guard.decide(input).reasons);
        Verdict {
            approved: reasons.is_empty(),
            reasons,
            latency_ns: u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX),
        }
    }

    fn path(&self) -> ExecPath {
        self.guard.path()
    }

    fn pdr_verifier(&self, task: &Task) -> PdrVerifier {
        self.guard.pdr_verifier(task)
    }
}
