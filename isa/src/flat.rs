//! PLACEHOLDER (being written): FlatBus, a simple test memory implementing Bus.
