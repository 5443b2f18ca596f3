// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PaceState} from "../../contracts/core/PaceState.sol";
import {DelegateState} from "../../contracts/delegate/DelegateState.sol";

/// @notice The accounts' state declared as plain storage, so `forge inspect` shows where each
///         member lives: `PaceAccount` keeps `PaceState.PaceStore` from slot 0, `PaceDelegate`
///         keeps `DelegateStore` from its ERC-7201 namespace (these offsets added to it). The
///         Rust side reads the lanes straight from these slots (`pace_pipeline::AccountKind`);
///         `make layout-check` compares both layouts with `tests/layouts/*.json`.
contract PaceAccountLayout {
    PaceState.PaceStore internal store;
}

/// @notice `PaceDelegate`'s namespace, from its first slot.
contract PaceDelegateLayout {
    DelegateState.DelegateStore internal store;
}
