package io.gendurable.docs.samples.gettingstarted;

// tag::state[]
public record CheckoutState(String orderId) {}
// end::state[]
