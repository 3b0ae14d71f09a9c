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
    source: null, updatedAt: new Date(0), providerId: "api", providerName: "API", providerI18n: {}, httpPath,
  });
  it("tells apart operations whose summaries are the same (`Get Details` of /person/{person_id} and of /movie/{movie_id})", () => {
    const docs = [operation("movie", "/movie/{movie_id}"), operation("person", "/person/{person_id}")].map((t) => analyzeDocument(indexDocument(t)));
    expect(indexDocument(operation("credits", "/movie/{movie_id}/credits")).fields.name).toEqual(["Get Details", "movie credits"]);
    expect(new SearchIndex(docs, baseRankerSettings).search("details about a person", 2)[0].id).toBe("person");
  });
});
