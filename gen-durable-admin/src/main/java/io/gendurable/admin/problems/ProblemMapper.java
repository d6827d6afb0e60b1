package io.gendurable.admin.problems;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Writes an {@link AdminProblem} as {@code application/problem+json}, with the request's path as
 * {@code instance}. It maps that one exception type, which only the admin resources throw: the
 * application's own resources and mappers are unaffected.
 */
@Provider
public class ProblemMapper implements ExceptionMapper<AdminProblem> {
    @Context
    UriInfo uri;

    @Override
    public Response toResponse(AdminProblem problem) {
        String instance = null;
        try {
            instance = uri == null ? null : uri.getRequestUri().getRawPath();
        } catch (RuntimeException e) {
            // no request context: leave instance out
        }
        return Response.status(problem.status())
                .type(Problem.MEDIA_TYPE)
                .entity(problem.toJson(instance))
                .build();
    }
}
