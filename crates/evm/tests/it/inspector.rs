use super::*;
use pace_contracts::bindings::{HiddenSink, IERC20};
use pace_evm::revm::{
    Inspector,
    context::ContextTr,
    interpreter::{CallInputs, CallOutcome},
    primitives::Log,
};

/// Records the target of every call frame and every log, including those of reverted frames.
#[derive(Default)]
struct Recorder {
    calls: Vec<(Address, Address)>,
    logs: Vec<Log>,
}

impl<CTX: ContextTr> Inspector<CTX> for Recorder {
    fn call(&mut self, _context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        self.calls.push((inputs.caller, inputs.target_address));
        None
    }

    fn log(&mut self, _context: &mut CTX, log: Log) {
        self.logs.push(log);
    }
}

#[test]
fn an_inspector_sees_nested_frames_and_logs() {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    let token = deploy_token(&mut evm, "TKN");
    let sink = evm.deploy(DEPLOYER, init_code("HiddenSink", &[])).unwrap();
    evm.call_sol(
        DEPLOYER,
        token,
        U256::ZERO,
        &MockERC20::mintCall {
            to: ALICE,
            amount: ether(10),
        },
    )
    .unwrap();
    evm.call_sol(
        ALICE,
        token,
        U256::ZERO,
        &IERC20::approveCall {
            spender: sink,
            value: ether(3),
        },
    )
    .unwrap();

    let data = alloy_sol_types::SolCall::abi_encode(&HiddenSink::collectCall {
        token,
        amount: ether(3),
    });
    // Simulate first: the inspector sees everything, the state does not change.
    let (sim, recorder) = evm
        .simulate_with_inspector(
            ALICE,
            sink,
            U256::ZERO,
            data.clone().into(),
            Recorder::default(),
        )
        .unwrap();
    assert!(sim.success);
    assert_eq!(recorder.calls, vec![(ALICE, sink), (sink, token)]);
    assert_eq!(recorder.logs.len(), 2, "Transfer and Collected");
    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: sink })
            .unwrap(),
        U256::ZERO
    );

    // Commit, with the inspector passed by reference.
    let mut recorder = Recorder::default();
    let (outcome, _) = evm
        .call_with_inspector(ALICE, sink, U256::ZERO, data.into(), &mut recorder)
        .unwrap();
    assert_eq!(outcome, sim);
    assert_eq!(recorder.logs, outcome.logs);
    assert_eq!(
        evm.view_sol(token, &IERC20::balanceOfCall { account: sink })
            .unwrap(),
        ether(3)
    );
    assert_eq!(
        outcome.events::<HiddenSink::Collected>()[0].1.amount,
        ether(3)
    );
}
