package io.gendurable.admin;

import io.gendurable.admin.requests.Requests;
import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.ProblemTranslation;
import io.gendurable.admin.access.AdminRoles;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.requests.Input;

import io.gendurable.Inserted;
import io.gendurable.ScheduleStatus;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recurring schedules, under {@code <application path>/gendurable/schedules}: the list needs
 * either role; pause, resume and trigger need {@link AdminRoles#ADMIN}. An unknown name is a 404
 * {@code urn:gendurable:problem:no-such-schedule}.
 */
@Path(GenDurableAdmin.PATH + "/schedules")
@RequestScoped
@ProblemTranslation
@DeclareRoles({AdminRoles.VIEWER, AdminRoles.ADMIN})
@RolesAllowed(AdminRoles.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable schedules", description = "Recurring schedules: list, pause, resume, trigger now")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class SchedulesResource {
    @Inject
    EngineChoice engines;

    /** @return every schedule, by name */
    @GET
    @RolesAllowed({AdminRoles.VIEWER, AdminRoles.ADMIN})
    @Operation(summary = "List the recurring schedules")
    @APIResponse(responseCode = "200", description = "the schedules, by name",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = ScheduleStatus.class)))
    public List<ScheduleStatus> list() {
        return engines.operations().schedules();
    }

    /**
     * @param name the schedule
     * @param body {@link Requests.Pause}
     * @return the schedule, paused
     */
    @PUT
    @Path("{name}/pause")
    @Operation(summary = "Pause a schedule", description = "No fire time inserts an instance until it is resumed; "
            + "what is missed meanwhile follows its misfire policy. Pausing a paused schedule updates its reason.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Pause.class)))
    @APIResponse(responseCode = "200", description = "paused",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ScheduleStatus.class)))
    @APIResponse(responseCode = "404", description = "no such schedule",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public ScheduleStatus pause(@Parameter(description = "schedule name") @PathParam("name") String name, String body) {
        JsonBody b = JsonBody.parse(body, Requests.Pause.FIELDS);
        requireExists(name);
        return engines.operations().pauseSchedule(name, b.string("reason"));
    }

    /**
     * @param name the schedule
     * @return the schedule, resumed
     */
    @DELETE
    @Path("{name}/pause")
    @Operation(summary = "Resume a schedule")
    @APIResponse(responseCode = "200", description = "resumed",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ScheduleStatus.class)))
    @APIResponse(responseCode = "404", description = "no such schedule",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public ScheduleStatus resume(@Parameter(description = "schedule name") @PathParam("name") String name) {
        requireExists(name);
        return engines.operations().resumeSchedule(name);
    }

    /**
     * @param name the schedule
     * @param body {@link Requests.Empty}
     * @return the inserted instance
     */
    @POST
    @Path("{name}/trigger")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Empty.class)))
    @Operation(summary = "Insert one instance of a schedule now",
            description = "Outside its fire times (correlation key schedule:<name>:manual:<now>); the next fire time does not move.")
    @APIResponse(responseCode = "200", description = "the inserted instance (id, duplicate)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Inserted.class)))
    @APIResponse(responseCode = "404", description = "no such schedule",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Inserted trigger(@Parameter(description = "schedule name") @PathParam("name") String name, String body) {
        JsonBody.parse(body, Set.of());
        requireExists(name);
        return engines.operations().triggerSchedule(name);
    }

    private void requireExists(String name) {
        Input.text("name", name);
        if (engines.operations().schedules().stream().noneMatch(s -> s.name().equals(name))) {
            throw noSuchSchedule(name);
        }
    }

    /**
     * @param name the schedule's name as the request gave it
     * @return the 404 for a name no schedule has, which quotes at most the name's start
     */
    public static AdminProblem noSuchSchedule(String name) {
        String shown = Input.shown(name);
        return new AdminProblem(Problem.TYPE_NO_SUCH_SCHEDULE, "No such schedule", 404,
                "no schedule is named " + shown, Map.of("name", shown.substring(1, shown.length() - 1)), null);
    }
}
