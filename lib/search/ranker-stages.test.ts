import { describe, expect, it } from "vitest";
import { SearchIndex, analyzeDocument, baseRankerSettings, withOverrides, type IndexDocument } from "./ranker";
import { indexDocument, type CatalogTool } from "./catalog-index";

/** The stages that serve catalogs of REST operations (short names under one API), each against its own off switch. */

function op(id: string, name: string, description: string, params: { name: string; required?: boolean; text?: string }[] = []): IndexDocument {
  return {
    id,
    successRate: null,
    inputs: params.filter((p) => p.required).map((p) => p.name),
    documentedParams: params.filter((p) => p.text).map((p) => p.name),
    fields: {
      name: [name],
      description: [description],
      params: params.map((p) => p.name),
      paramText: params.flatMap((p) => (p.text ? [p.text] : [])),
      examples: [],
      category: [],
      provider: ["Music API"],
    },
  };
}

const ranked = (docs: IndexDocument[], settings: Partial<Record<string, number>>, query: string) =>
  new SearchIndex(docs.map(analyzeDocument), withOverrides(baseRankerSettings, { "coverage.name": 0, "coverage.description": 0, "coverage.params": 0, ...settings }))
    .search(query, 10)
    .map((r) => r.id);

describe("exact word forms (exact)", () => {
  const music = [
    op("now", "Get Currently Playing Track", "Get the track currently being played."),
    op("start", "Start Playback", "Start or resume playback.", [{ name: "uris", text: "Tracks to play." }]),
  ];
  it("a request to play finds what plays, not what is playing, once exact forms count", () => {
    expect(ranked(music, { exact: 0 }, "play a song")[0]).toBe("now");
    expect(ranked(music, { exact: 1 }, "play a song")[0]).toBe("start");
  });
});

describe("whole-tool length normalisation (docNorm)", () => {
  const long = "Covers stations, sensors, archives, radar imagery, marine zones, aviation bulletins, pollen counts and almanac tables across many regions.";
  const reports = [op("long", "Weather report", long), op("short", "Weather report", "A short summary.")];
  it("per field, two equal names match equally; over the whole tool, the one that says much else weighs less", () => {
    expect(ranked(reports, { docNorm: 0 }, "weather report")).toEqual(["long", "short"]);
    expect(ranked(reports, { docNorm: 1 }, "weather report")).toEqual(["short", "long"]);
  });
});

describe("lookup tools for named things (lookup)", () => {
  const movies = [
    op("search", "Search Movies", "Search for movies by title.", [{ name: "query", required: true, text: "Text to look for." }]),
    op("credits", "Get Credits", "Get the cast and crew of a movie, its director included.", [{ name: "movie_id", required: true }]),
    op("images", "Get Movie Images", "Get the images of a movie.", [{ name: "movie_id", required: true }]),
  ];
  const before = (order: string[]) => order.indexOf("search") < order.indexOf("images");
  it("a request naming something no tool knows lifts the tools that search by text", () => {
    const query = "Who is the director of the movie Twilight?";
    expect(before(ranked(movies, { lookup: 0 }, query))).toBe(false);
    expect(before(ranked(movies, { lookup: 2 }, query))).toBe(true);
  });
  it("does nothing when the request names nothing unknown (a capital at a sentence's start does not count)", () => {
    expect(ranked(movies, { lookup: 2 }, "Director of a movie")).toEqual(ranked(movies, { lookup: 0 }, "Director of a movie"));
  });
  it("a quoted name counts, even in lower case", () => {
    expect(before(ranked(movies, { lookup: 2 }, "the director of the movie 'twilight'"))).toBe(true);
  });
  it("a quoted value (an id, a token, a URL) or an acronym names nothing to search for", () => {
    for (const query of ['the director of the movie "tt0120338"', 'the director of the movie with token "abcd1234"', "the director of the movie in PNG"]) {
      expect(ranked(movies, { lookup: 2 }, query), query).toEqual(ranked(movies, { lookup: 0 }, query));
    }
  });
});

describe("searches that give a named thing's id (lookupIds)", () => {
  const movies = [
    op("search-movies", "Search Movies", "Search for movies by title.", [{ name: "query", required: true, text: "Text to look for." }]),
    op("search-people", "Search People", "Search for people by name.", [{ name: "query", required: true, text: "Text to look for." }]),
    op("credits", "Get Credits", "Get the cast and crew of a movie, its director included.", [{ name: "movie_id", required: true }]),
    op("images", "Get Images", "Get the images of a movie, its director's portrait included.", [{ name: "movie_id", required: true }]),
  ];
  const query = "Who is the director of Twilight?";
  it("a request naming an unknown thing brings the search for the thing a well-ranked tool needs the id of", () => {
    const without = ranked(movies, { lookup: 0.5, lookupIds: 0 }, query);
    const withIds = ranked(movies, { lookup: 0.5, lookupIds: 1 }, query);
    expect(withIds.indexOf("search-movies")).toBeLessThan(without.indexOf("search-movies") === -1 ? Infinity : without.indexOf("search-movies"));
    expect(withIds.indexOf("search-movies")).toBeLessThan(withIds.indexOf("search-people") === -1 ? Infinity : withIds.indexOf("search-people"));
    expect(withIds.slice(0, 2)).toContain("search-movies");
  });
  it("not for a request that names nothing unknown", () => {
    expect(ranked(movies, { lookup: 0.5, lookupIds: 1 }, "the director of a movie")).toEqual(ranked(movies, { lookup: 0.5, lookupIds: 0 }, "the director of a movie"));
  });
});

describe("producers of ids (chainIds)", () => {
  const ops = [
    op("playlists", "Get My Playlists", "The user's playlists."),
    op("remove", "Remove Playlist Items", "Remove items from a playlist.", [{ name: "playlist_id", required: true }, { name: "tracks", required: true }]),
    op("other", "Get Album", "An album.", []),
  ];
  it("a tool needing <thing>_id brings the tool that lists the thing beside it", () => {
    const query = "remove some items";
    expect(ranked(ops, { chain: 0.8, chainIds: 0 }, query)).not.toContain("playlists");
    expect(ranked(ops, { chain: 0.8, chainIds: 1 }, query)).toContain("playlists");
  });
});

describe("an operation's path as words of its name", () => {
  const operation = (id: string, httpPath: string): CatalogTool => ({
    id, name: "Get Details", description: "Get the primary information.", lang: "en", i18n: {}, category: null,
    params: [], oneOfRequired: null, examples: null, expectedCost: null, billingRule: null, successRate: null, avgExecutionTimeMs: null,
    source: null, updatedAt: new Date(0), providerId: "api", providerName: "API", providerI18n: {}, httpPath, httpMethod: "GET", connection: null, regions: null,
  });
  it("tells apart operations whose summaries are the same (`Get Details` of /person/{person_id} and of /movie/{movie_id})", () => {
    const docs = [operation("movie", "/movie/{movie_id}"), operation("person", "/person/{person_id}")].map((t) => analyzeDocument(indexDocument(t)));
    expect(indexDocument(operation("credits", "/movie/{movie_id}/credits")).fields.name).toEqual(["Get Details", "movie credits"]);
    expect(new SearchIndex(docs, baseRankerSettings).search("details about a person", 2)[0].id).toBe("person");
  });
});

describe("the HTTP method of an operation (method)", () => {
  // One API whose operations of a resource are summarised alike, as many documents do: only the method tells them apart.
  const operation = (id: string, httpMethod: string | null, httpPath: string | null, name: string, description = `The ${name.toLowerCase()}.`): CatalogTool => ({
    id, name, description, lang: "en", i18n: {}, category: null,
    params: [], oneOfRequired: null, examples: null, expectedCost: null, billingRule: null, successRate: null, avgExecutionTimeMs: null,
    source: null, updatedAt: new Date(0), providerId: "api", providerName: "API", providerI18n: {}, httpPath, httpMethod, connection: null, regions: null,
  });
  const api = [
    operation("a-get", "GET", "/chat/completions/{completion_id}", "Chat completion", "A stored chat completion: only those created with `store` can be read."),
    operation("b-list", "GET", "/chat/completions", "Chat completion"),
    operation("c-delete", "DELETE", "/chat/completions/{completion_id}", "Chat completion", "Deletes a chat completion created with `store`."),
    operation("d-update", "POST", "/chat/completions/{completion_id}", "Chat completion", "Modifies a chat completion created with `store`."),
    operation("e-create", "POST", "/chat/completions", "Chat completion", "A model response for the given conversation, with many options."),
    operation("f-get", "GET", "/files/{file_id}", "File"),
    operation("g-upload", "POST", "/files", "File"),
    operation("h-delete", "DELETE", "/files/{file_id}", "File"),
    operation("i-list", "GET", "/files", "File"),
  ].map((t) => analyzeDocument(indexDocument(t)));
  const order = (docs: typeof api, method: number, query: string) => new SearchIndex(docs, withOverrides(baseRankerSettings, { method })).search(query, 10).map((r) => r.id);

  it("puts first the operation of the resource that does what the request's verb asks", () => {
    // Without it, the operations whose descriptions say "created" win "create a chat completion".
    expect(order(api, 0, "create a chat completion")[0]).not.toBe("e-create");
    expect(order(api, 1, "create a chat completion")[0]).toBe("e-create");
    expect(order(api, 1, "modify a chat completion")[0]).toBe("d-update");
    expect(order(api, 1, "delete the file")[0]).toBe("h-delete");
    expect(order(api, 1, "upload a file")[0]).toBe("g-upload");
    expect(order(api, 1, "list my files").slice(0, 2).sort()).toEqual(["f-get", "i-list"]);
    expect(order(api, 1, "删除 chat completion")[0]).toBe("c-delete");
  });

  it("moves an operation only within its resource: the best score of each resource, and every other tool's, stay", () => {
    const scores = (method: number, query: string) => new SearchIndex(api, withOverrides(baseRankerSettings, { method })).search(query, 10).map((r) => r.score);
    // "delete the chat completion's file": the chat DELETE and the file DELETE each lead their own resource, in the text's order of resources.
    const off = new SearchIndex(api, withOverrides(baseRankerSettings, { method: 0 })).search("delete the file", 10);
    const on = new SearchIndex(api, withOverrides(baseRankerSettings, { method: 1 })).search("delete the file", 10);
    expect(Math.max(...on.map((r) => r.score))).toBeCloseTo(Math.max(...off.map((r) => r.score)), 6);
    expect(on.find((r) => r.id === "c-delete")!.score).toBeCloseTo(Math.max(...off.filter((r) => /^[a-e]-/.test(r.id)).map((r) => r.score)), 6);
    expect(scores(1, "a chat completion")).toEqual(scores(0, "a chat completion"));
  });

  it("leaves tools without a method as they were", () => {
    const plain = [operation("x-plain", null, null, "Chat completion"), operation("y-plain", null, "/chat/completions", "Chat completion")].map((t) => analyzeDocument(indexDocument(t)));
    const mixed = [...api, ...plain];
    const scores = (method: number) => new Map(new SearchIndex(mixed, withOverrides(baseRankerSettings, { method })).search("create a chat completion", 20).map((r) => [r.id, r.score]));
    expect(scores(1).get("x-plain")).toBe(scores(0).get("x-plain"));
    expect(scores(1).get("y-plain")).toBe(scores(0).get("y-plain"));
    expect(plain.map((d) => d.operation)).toEqual([null, null]);
  });
});
