package io.gendurable.docs.samples.fsm;

// tag::args[]
public record ReceiptArgs(String orderId, String email) {}
// end::args[]
