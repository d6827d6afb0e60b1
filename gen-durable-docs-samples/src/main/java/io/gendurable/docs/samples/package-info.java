/**
 * The Java code samples of {@code docs/}, one package per page. Each snippet a page shows lies
 * between {@code // tag::name[]} and {@code // end::name[]}; {@code DocIncludes} copies it into
 * the page, and {@code DocsIncludesTest} fails when a page and its sample disagree. Helper types
 * the pages only mention ("your own bean") are declared here too, outside the tags, so that
 * every sample compiles.
 */
package io.gendurable.docs.samples;
