package com.example.greetings;

import io.gendurable.AwaitResult;
import io.gendurable.GenDurable;
import io.gendurable.Inserted;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;

@RequestScoped
@Path("greetings")
@Produces(MediaType.APPLICATION_JSON)
public class GreetingResource {
    @Inject GenDurable durable;

    @POST
    @Path("{name}")
    public String greet(@PathParam("name") String name) {
        Inserted r = durable.insert(Greeting.class, new Greeting.Hello(name, 0));
        AwaitResult a = durable.await(r.id(), Duration.ofSeconds(10));    // wait for the result
        return a instanceof AwaitResult.Done d ? d.result().json() : "{\"id\":" + r.id() + ",\"still\":\"running\"}";
    }
}
