package io.gendurable.sample;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The sample's stand-in for a payment provider: it accepts every charge, except while an outage
 * is simulated ({@code PUT /api/psp/outage}), when a charge throws
 * {@link PaymentProviderUnavailable}. The outage is this node's, in memory: it shows what a
 * failed order looks like (and how an operator retries it) without a real provider.
 */
@ApplicationScoped
public class PaymentProvider {
    private volatile boolean down;

    /**
     * @param orderId        the order
     * @param idempotencyKey the provider's idempotency key for this charge
     * @throws PaymentProviderUnavailable during a simulated outage
     */
    public void charge(String orderId, String idempotencyKey) {
        if (down) {
            throw new PaymentProviderUnavailable("payment provider unavailable (simulated outage): charge "
                    + idempotencyKey + " for order " + orderId + " not accepted");
        }
    }

    /** @param down whether charges fail from now on */
    public void outage(boolean down) {
        this.down = down;
    }

    /** @return whether an outage is simulated */
    public boolean down() {
        return down;
    }
}
