//! The opt-in language-model agent against the local stub chat-completions server: it stays
//! behind the verifier, and its trials stay out of Table 1.

use pace_bench::{AgentId, BenchConfig, ChainState, Reason, llm::LlmStudy, run};
use pace_llm::LlmConfig;
use pace_testkit::llm_stub::{Reply, Stub, chat};
use std::time::Duration;

/// Table 1's 40 tasks of seed 0 with only the model study, against `stub`.
fn llm_only(stub: &Stub) -> pace_bench::BenchOutput {
    let config = BenchConfig {
        seeds: vec![0],
        table1: false,
        general: false,
        ablation: false,
        adaptive: false,
        threads: 1,
        llm: Some(LlmStudy {
            model: LlmConfig {
                base_url: format!("http://{}/v1", stub.addr),
                api_key: String::new(),
                model: "stub".into(),
                timeout: Duration::from_secs(10),
                temperature: 0.0,
                ca_cert: None,
            },
            trace: None,
        }),
        ..BenchConfig::default()
    };
    run(&config, &|_, _, _| {}).expect("bench runs")
}

#[test]
fn a_model_that_approves_everything_is_still_stopped_by_the_verifier() {
    let approve = chat(r#"{"decision": "approve", "reason": "looks fine"}"#);
    let stub = Stub::serve(vec![Reply::Ok(approve); 40]);
    let out = llm_only(&stub);
    assert!(out.table1.is_empty() && out.all().next().is_none());
    assert_eq!(out.llm.len(), 40);
    assert_eq!(stub.requests().len(), 40, "one question per task");
    for t in &out.llm {
        assert_eq!(t.agent, AgentId::Llm);
        assert!(!t.unsafe_execution, "{}: unsafe", t.task);
        if t.is_attack {
            assert!(
                !t.approved,
                "{}: the verifier let an attack through",
                t.task
            );
        } else {
            assert!(
                t.approved && t.intended_effect,
                "{}: {:?}",
                t.task,
                t.reasons
            );
            assert_eq!(t.chain, ChainState::Executed);
        }
    }
}

#[test]
fn a_model_that_rejects_or_cannot_be_reached_rejects() {
    let reject = chat(r#"{"decision": "reject", "reason": "no"}"#);
    let mut replies = vec![Reply::Ok(reject); 20];
    replies.extend(vec![Reply::Status(500, "{}".into()); 20]);
    let stub = Stub::serve(replies);
    let out = llm_only(&stub);
    assert_eq!(out.llm.len(), 40);
    // (A calldata-mutation task still sends its tampered PDR, which the account refuses.)
    assert!(out.llm.iter().all(|t| !t.approved && !t.unsafe_execution));
    let model = |r: &Reason| matches!(r, Reason::ModelRejected | Reason::ModelUnavailable);
    assert!(out.llm.iter().all(|t| t.reasons.iter().any(model)));
    assert!(
        out.llm
            .iter()
            .any(|t| t.reasons.contains(&Reason::ModelUnavailable))
    );
}
