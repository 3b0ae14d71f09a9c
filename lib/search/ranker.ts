// The in-process ranking index: BM25F over the fields of a tool, a coverage re-rank of the best
// candidates, query expansion (glossary, typo tolerance) and a bounded reliability boost. Pure
// and synchronous: it knows nothing about the database (`catalog-index.ts` feeds it).
import { analyzeQuery, defaultExpansionWeights, push, termPairs, type ExpansionWeights } from "./expand";
import { FuzzyIndex } from "./fuzzy";
import fitted from "./fitted-settings.json";
import { operationOf, requestIntents, serves, type Intent, type Operation } from "./method-intent";
import { containsChinese, exactTerms, foldPlural, isEnglishStopWord, latinWords, splitIdentifier, stem, tokenize } from "./tokenize";

export const searchFields = ["name", "description", "params", "paramText", "examples", "category", "provider"] as const;
export type SearchField = (typeof searchFields)[number];

/** One tool as the ranker sees it: the texts of each field (every language it has), its reliability. */
export interface IndexDocument {
  id: string;
  fields: Record<SearchField, readonly string[]>;
  /** Historical success rate 0..1, or null when unknown (treated as neutral). */
  successRate: number | null;
  /** Names of the parameters a Call must give (what another tool may have to produce first). */
  inputs?: readonly string[];
  /**
   * Names (and field names) of the parameters the schema documents: a description, enum values or
   * an object's field names. A bare name with only a type (`text`, `n`, `model_name` in a code
   * catalog) says what the tool takes, not what it is for: it counts for BM25F, not for coverage.
   */
  documentedParams?: readonly string[];
  /** An http tool's operation: its API, method and path; absent or null for a tool that is not one. */
  operation?: { api: string; method: string; path: string } | null;
}

export interface RankerSettings {
  /** BM25 term-frequency saturation. */
  k1: number;
  fieldWeights: Record<SearchField, number>;
  /** Length normalisation per field (BM25's b). */
  fieldB: Record<SearchField, number>;
  /**
   * How much of each field's length normalisation is by the whole tool's length instead of the
   * field's own (0: per field, BM25F; 1: by the tool's weighted length, as plain BM25 over one bag
   * of words does). Where names and descriptions are two or three words, a per-field norm makes a
   * word in a short name outweigh everything else the tool says.
   */
  docNorm: number;
  /**
   * Coverage re-rank: a candidate's score is multiplied by 1 + Σ weight × (idf-weighted share of
   * that part of the tool found in the query). Queries are long requests and tools are short:
   * a tool whose own words the request mostly uses is a better answer than one that shares a
   * single rare word with it.
   */
  coverage: { name: number; description: number; params: number };
  /** Idf mass added to every part's total before the share is taken (short parts need more evidence). */
  coveragePrior: number;
  /**
   * 0: a part the tool lacks (no parameters) covers nothing; 1: the coverage weights are spread
   * over the parts the tool has, so a tool is not outranked for having no parameters to match.
   */
  coverageOwnParts: number;
  /** How many BM25F candidates the coverage re-rank looks at. */
  rerankDepth: number;
  expansion: ExpansionWeights;
  /**
   * Weight of a request word's exact form (plural folded, not stemmed) beside its stem: a tool that
   * uses the word as the request does scores above one that only shares its stem. 0 turns it off.
   */
  exact: number;
  /**
   * A request that names something the catalog has never heard of ("Titanic", "Taylor Swift": a
   * capitalised or quoted word no tool uses) needs a search to turn the name into an id: tools that
   * find things by free text (`AnalyzedDocument.lookup`) are scored × (1 + lookup). 0 turns it off.
   */
  lookup: number;
  /** Weight of a catalog term reached through a typo correction (edit distance 1; 2 counts 70%). */
  fuzzy: number;
  /**
   * Weight of an identifier abbreviation reached from a longer query word: a short word that the
   * catalog uses only in names and parameter names, never in running text (`div`, `mul`, `calc`,
   * `num`), matched by a query word it begins (`divided`, `multiply`). 0 turns it off.
   */
  abbreviation: number;
  /**
   * Reliability boost: ± this fraction of the score, from success_rate 0 (−) to 1 (+), neutral
   * when unknown. It reorders only candidates whose relevance differs by less than about twice
   * this fraction; relevance always decides otherwise.
   */
  reliability: number;
  /**
   * Tool chains: a tool whose name ends with what a well-ranked tool's required parameter names
   * (`get_user_token` for `token`, `retrieve_numbers` for `numbers`) is scored at least this
   * share of that tool's score. 0 turns it off.
   */
  chain: number;
  /** How many of the best candidates look for the producers of their inputs. */
  chainDepth: number;
  /** An input with more producers than this is too generic to link. */
  chainFanout: number;
  /** 1: an input named `<thing>_id` is also produced by a tool whose name ends with the thing (`Search Movies` for `movie_id`). */
  chainIds: number;
  /**
   * For a request that names something unknown (see `lookup`): the search tools whose name names
   * the thing of a well-ranked tool's `<thing>_id` input are scored at least this share of that
   * tool's score — the id comes from searching for the name. 0 turns it off.
   */
  lookupIds: number;
  /**
   * Pseudo-relevance feedback (RM3): the terms of the `docs` best first-pass tools, weighted by
   * their share of those tools' text and score, the `terms` strongest added to the query at
   * `weight` (the query's own terms keep 1 − weight). weight 0 turns it off.
   */
  prf: { docs: number; terms: number; weight: number };
  /**
   * 1: among the re-ranked candidates, the operations of one resource (`/files`, `/files/{id}` of
   * one API) that do what the request's verbs ask (`method-intent.ts`: "create" the POST to the
   * collection, "delete" the DELETE, "list" the GET) take that resource's best scores, the others
   * the rest. Scores of other tools, and the set of the resource's scores, do not change. 0 turns it off.
   */
  method: number;
}

/** Where fitting starts: hand-set values (the ranking before fitting, with every newer stage off). */
export const baseRankerSettings: RankerSettings = {
  k1: 1.2,
  fieldWeights: { name: 3, description: 1.5, params: 1, paramText: 0.8, examples: 0.5, category: 1, provider: 1 },
  fieldB: { name: 0.5, description: 0.75, params: 0.75, paramText: 0.75, examples: 0.5, category: 0.5, provider: 0.5 },
  docNorm: 0,
  coverage: { name: 0.25, description: 1, params: 1.5 },
  coveragePrior: 0,
  coverageOwnParts: 0,
  rerankDepth: 50,
  expansion: defaultExpansionWeights,
  exact: 0,
  lookup: 0,
  fuzzy: 0.6,
  abbreviation: 0,
  reliability: 0.02,
  chain: 0,
  chainDepth: 5,
  chainFanout: 3,
  chainIds: 0,
  // Acts only with `lookup` on (off here): not fitted, `lookup` switches the pair.
  lookupIds: 1,
  prf: { docs: 5, terms: 20, weight: 0 },
  method: 1,
};

/**
 * The product's settings: the base with the values `npm run fit:search` fitted on every source of
 * the public catalog (`fitted-settings.json`; docs/search.md gives the held-out figures).
 */
export const defaultRankerSettings: RankerSettings = withOverrides(baseRankerSettings, fitted as Partial<Record<string, number>>);

/** Settings with some values replaced, by dotted path (`coverage.params`, `prf.weight`). */
export function withOverrides(settings: RankerSettings, values: Partial<Record<string, number>>): RankerSettings {
  const out = structuredClone(settings) as unknown as Record<string, unknown>;
  for (const [path, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const keys = path.split(".");
    let node = out;
    for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
    if (typeof node[keys[keys.length - 1]] !== "number") throw new Error(`Unknown ranker setting ${path}`);
    node[keys[keys.length - 1]] = value;
  }
  return out as unknown as RankerSettings;
}

/** The settings an index's build depends on, as a key: two settings with the same key share postings. */
export function indexShape(settings: RankerSettings): string {
  return JSON.stringify([settings.fieldWeights, settings.fieldB, settings.docNorm, settings.exact > 0, settings.chainFanout, settings.chainIds]);
}

/** A document tokenised once: reused by every index that contains it (whole catalog, per source). */
export interface AnalyzedDocument {
  id: string;
  successRate: number | null;
  /** Terms per field, in `searchFields` order. */
  fields: string[][];
  /** Exact (unstemmed) forms of each field's English words, in `searchFields` order (see `RankerSettings.exact`). */
  exact: string[][];
  /** English words before stemming, for the typo index. */
  words: Set<string>;
  /** Terms of each required parameter's name. */
  inputs: string[][];
  /** Terms of the tool's own name (its first name when it has several languages). */
  nameTerms: string[];
  /** Terms of the names (and field names) of the parameters the catalog documents (see `IndexDocument.documentedParams`). */
  documentedParamTerms: string[];
  /** The tool finds things by free text: it requires a query-like parameter (`query`, `q`, `keyword`, `search`, `term`). */
  lookup: boolean;
  /** An http tool's operation, null for a tool that is not one. */
  operation: Operation | null;
}

const DESCRIPTION = searchFields.indexOf("description");
const NAME_LIKE = /^[\p{L}][\p{L}\s&'.,:!?-]*$/u;
const ACRONYM = /^[A-Z]{2,5}s?$/;

/** Parameter names (their last word) of a search: a tool that requires one turns a name into the ids other tools need. */
const LOOKUP_INPUTS = new Set(["query", "q", "keyword", "search", "term"]);

export function analyzeDocument(doc: IndexDocument): AnalyzedDocument {
  const words = new Set<string>();
  return {
    id: doc.id,
    successRate: doc.successRate,
    fields: searchFields.map((f) => doc.fields[f].flatMap((text) => tokenize(text, words))),
    exact: searchFields.map((f) => doc.fields[f].flatMap((text) => exactTerms(text))),
    words,
    inputs: (doc.inputs ?? []).map((name) => tokenize(name)).filter((terms) => terms.length > 0),
    nameTerms: tokenize(doc.fields.name[0] ?? ""),
    documentedParamTerms: (doc.documentedParams ?? []).flatMap((name) => tokenize(name)),
    lookup: (doc.inputs ?? []).some((name) => LOOKUP_INPUTS.has(foldPlural(splitIdentifier(name).at(-1) ?? ""))),
    operation: doc.operation ? operationOf(doc.operation.api, doc.operation.method, doc.operation.path) : null,
  };
}

interface Part {
  terms: string[];
  idfs: Float64Array;
  total: number;
}

const ABBREVIATION = /^[a-z]+$/;
const chineseWords = new Intl.Segmenter("zh", { granularity: "word" });

/**
 * The request's own terms, each with how the request wrote it: English words before stemming,
 * Chinese as the segmenter's words; null for the index's character bigrams across word
 * boundaries (度单 in 长度单位), which nobody wrote and an explanation leaves out.
 */
function ownWords(query: string): Map<string, string | null> {
  const own = new Map<string, string | null>();
  for (const word of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    for (const term of tokenize(word)) if (!own.has(term)) own.set(term, containsChinese(term) ? null : word);
  }
  for (const { segment, isWordLike } of chineseWords.segment(query)) if (isWordLike && containsChinese(segment)) own.set(segment, segment);
  return own;
}

export interface RankedDocument {
  index: number;
  id: string;
  score: number;
  /** Set when the tool ranks where it does as the producer of an input of this tool (see `chain`). */
  neededBy?: string;
}

/** Why a tool matched: the request's words found in each field, and the terms reached by expansion. */
export interface MatchExplanation {
  /** Per field, the words of the request (or their expansions) that the field contains. */
  fields: Partial<Record<SearchField, string[]>>;
  /** Matched words that are not the request's own: synonyms, translations, typo corrections (as the catalog spells them). */
  expanded: string[];
  /** The tool ranked as the producer of an input of this tool. */
  needed_by?: string;
}

export class SearchIndex {
  readonly size: number;
  /**
   * Postings in one compact layout (a term's entries are `docs`/`tfs` from `offsets[id]` to
   * `offsets[id + 1]`): a map entry and a few numbers a term instead of an object and two typed
   * arrays, which is most of the index's memory with a large catalog (nearly every adjacent-term
   * pair is a term of its own).
   */
  private readonly termIds = new Map<string, number>();
  private offsets = new Int32Array(1);
  private postingDocs = new Int32Array(0);
  private postingTfs = new Float32Array(0);
  private idfs = new Float64Array(0);
  /** Distinct terms (with their idf) of each document's name, description and parameters, for the coverage re-rank. */
  private readonly parts: { name: Part; description: Part; params: Part }[] = [];
  private readonly words = new Set<string>();
  private fuzzyIndex: FuzzyIndex | undefined;
  /** Short words found only in identifiers (names, parameter names), never in running text. */
  private readonly abbreviations = new Set<string>();
  /** Stem -> a catalog word with that stem, for showing expansions (built on the first explanation). */
  private wordsByStem: Map<string, string> | undefined;
  /** The last query `explain` analysed. */
  private explained: { query: string; terms: Map<string, number>; own: Map<string, string | null> } | undefined;
  /** Per document: the documents producing each of its inputs (see `chain`). */
  private producers: Int32Array[] = [];
  /** Each document's BM25F weight of a token in each field (its field weight over its length norm), `searchFields` order. */
  private fieldNorms = new Float32Array(0);
  /** How many documents use each exact word form (see `exact`): exact forms are scored on the candidates only, from their tokens. */
  private readonly exactDf = new Map<string, number>();
  /** Per document: the search tools whose name names the thing of one of its `<thing>_id` inputs (see `lookupIds`). */
  private searchers: Int32Array[] = [];
  /** Corrections already looked up: the same unknown words (names, places) recur across queries. */
  private readonly corrections = new Map<string, { terms: string[]; distance: number }>();

  /**
   * Builds the index at once. A large catalog should use `SearchIndex.build`, which lets other
   * requests run between slices (100,000 tools take ~15 s of CPU).
   */
  constructor(
    readonly documents: readonly AnalyzedDocument[],
    readonly settings: RankerSettings = defaultRankerSettings,
    runNow = true,
  ) {
    this.size = documents.length;
    if (runNow) for (const _ of this.steps());
  }

  /**
   * This index ranking with other settings: the built postings are shared when the settings that
   * shape them (field weights and length norms, exact forms, chain fan-out) are the same, so a fit
   * that tries query-time values (coverage, chains, feedback, k1) builds each index once.
   */
  withSettings(settings: RankerSettings): SearchIndex {
    if (indexShape(settings) !== indexShape(this.settings)) return new SearchIndex(this.documents, settings);
    const view = Object.create(SearchIndex.prototype) as SearchIndex;
    return Object.assign(view, this, { settings });
  }

  /** The index, built in slices that yield to the event loop between them. */
  static async build(documents: readonly AnalyzedDocument[], settings: RankerSettings = defaultRankerSettings): Promise<SearchIndex> {
    const index = new SearchIndex(documents, settings, false);
    for (const _ of index.steps()) await new Promise((resolve) => setImmediate(resolve));
    return index;
  }

  /** The construction, as a sequence of slices of roughly equal cost (a yield between slices). */
  private *steps(): Generator<void> {
    const { documents, settings } = this;
    const SLICE = 2_000;
    for (const doc of documents) for (const w of doc.words) this.words.add(w);

    const avgLength = searchFields.map((_, f) => documents.reduce((sum, doc) => sum + doc.fields[f].length, 0) / Math.max(1, documents.length) || 1);
    // A tool's length as BM25F weighs it: each field's tokens at the field's weight.
    const docLength = (fields: string[][]) => searchFields.reduce((sum, field, f) => sum + settings.fieldWeights[field] * fields[f].length, 0);
    const avgDocLength = documents.reduce((sum, doc) => sum + docLength(doc.fields), 0) / Math.max(1, documents.length) || 1;
    const lists = new Map<string, { docs: number[]; tfs: number[] }>();
    this.fieldNorms = new Float32Array(documents.length * searchFields.length);
    for (let d = 0; d < documents.length; d++) {
      if (d > 0 && d % SLICE === 0) yield;
      const { fields } = documents[d];
      // BM25F: each field's counts are length-normalised and weighted, then saturated together.
      const pseudoTf = new Map<string, number>();
      const wholeRatio = docLength(fields) / avgDocLength;
      searchFields.forEach((field, f) => {
        const tokens = fields[f];
        if (tokens.length === 0) return;
        const b = settings.fieldB[field];
        const ratio = (1 - settings.docNorm) * (tokens.length / avgLength[f]) + settings.docNorm * wholeRatio;
        const w = settings.fieldWeights[field] / (1 - b + b * ratio);
        for (const t of tokens) pseudoTf.set(t, (pseudoTf.get(t) ?? 0) + w);
        for (const t of termPairs(tokens)) pseudoTf.set(t, (pseudoTf.get(t) ?? 0) + w);
        this.fieldNorms[d * searchFields.length + f] = w;
      });
      for (const [t, tf] of pseudoTf) {
        let list = lists.get(t);
        if (!list) lists.set(t, (list = { docs: [], tfs: [] }));
        list.docs.push(d);
        list.tfs.push(tf);
      }
    }
    const n = documents.length;
    let total = 0;
    for (const { docs } of lists.values()) total += docs.length;
    this.offsets = new Int32Array(lists.size + 1);
    this.postingDocs = new Int32Array(total);
    this.postingTfs = new Float32Array(total);
    this.idfs = new Float64Array(lists.size);
    let id = 0;
    let offset = 0;
    for (const [t, { docs, tfs }] of lists) {
      if (id > 0 && id % (SLICE * 20) === 0) yield;
      this.termIds.set(t, id);
      this.offsets[id] = offset;
      this.postingDocs.set(docs, offset);
      this.postingTfs.set(tfs, offset);
      this.idfs[id] = Math.log(1 + (n - docs.length + 0.5) / (docs.length + 0.5));
      offset += docs.length;
      id += 1;
    }
    this.offsets[id] = offset;
    lists.clear();
    yield;
    const at = (field: SearchField) => searchFields.indexOf(field);
    const part = (terms: string[]): Part => {
      const distinct = [...new Set(terms)];
      const idfs = Float64Array.from(distinct, (t) => this.idf(t));
      return { terms: distinct, idfs, total: idfs.reduce((a, b) => a + b, 0) };
    };
    if (settings.exact > 0) {
      for (const doc of documents) for (const t of new Set(doc.exact.flat())) this.exactDf.set(t, (this.exactDf.get(t) ?? 0) + 1);
    }
    this.producers = this.linkProducers();
    this.searchers = this.linkSearchers();
    yield;
    const inText = new Set<string>();
    const textFields = ["description", "paramText", "examples", "category", "provider"].map((f) => at(f as SearchField));
    const identifierFields = ["name", "params"].map((f) => at(f as SearchField));
    for (const doc of documents) for (const f of textFields) for (const t of doc.fields[f]) inText.add(t);
    for (const doc of documents) {
      for (const f of identifierFields) for (const t of doc.fields[f]) if (t.length >= 3 && t.length <= 4 && ABBREVIATION.test(t) && !inText.has(t) && this.words.has(t)) this.abbreviations.add(t);
    }
    for (let d = 0; d < documents.length; d++) {
      if (d > 0 && d % SLICE === 0) yield;
      const { fields, documentedParamTerms } = documents[d];
      this.parts.push({
        name: part(fields[at("name")]),
        description: part(fields[at("description")]),
        params: part([...documentedParamTerms, ...fields[at("paramText")], ...fields[at("examples")]]),
      });
    }
  }

  /**
   * For each tool, the tools whose name ends with one of its required inputs and adds at most
   * two words to it (a getter: `GetUserToken` for `token`). An input with more than three such
   * producers is too generic to link.
   */
  private linkProducers(): Int32Array[] {
    const byLastTerm = new Map<string, number[]>();
    this.documents.forEach((doc, d) => {
      const last = doc.nameTerms[doc.nameTerms.length - 1];
      if (last !== undefined) push(byLastTerm, last, d);
    });
    return this.documents.map((doc, d) => {
      const out = new Set<number>();
      // `movie_id` is produced by what lists movies (`Search Movies`), as `token` by `GetUserToken`.
      const wanted = doc.inputs.flatMap((input) => (this.settings.chainIds > 0 && input.length > 1 && input[input.length - 1] === "id" ? [input, input.slice(0, -1)] : [input]));
      for (const input of wanted) {
        const key = input.join(" ");
        const found = (byLastTerm.get(input[input.length - 1]) ?? []).filter((p) => {
          const producer = this.documents[p];
          const name = producer.nameTerms;
          if (p === d || name.length < input.length + 1 || name.length > input.length + 2) return false;
          // A tool that needs the thing itself does not produce it (ModifyPassword for `password`).
          if (producer.inputs.some((own) => own.join(" ") === key || own[own.length - 1] === input[input.length - 1])) return false;
          return input.every((t, i) => name[name.length - input.length + i] === t);
        });
        if (found.length <= this.settings.chainFanout) for (const p of found) out.add(p);
      }
      return Int32Array.from(out);
    });
  }

  /**
   * For each tool, the lookup tools (`AnalyzedDocument.lookup`) whose name has every word of the
   * thing one of its required `<thing>_id` inputs names: `Search Movies` for `movie_id`,
   * `Search TV Shows` for `tv_id`. A thing with more such searches than `chainFanout` is too
   * generic to link.
   */
  private linkSearchers(): Int32Array[] {
    const lookups = this.documents.flatMap((doc, d) => (doc.lookup ? [d] : []));
    return this.documents.map((doc, d) => {
      const out = new Set<number>();
      for (const input of doc.inputs) {
        if (input[input.length - 1] !== "id") continue;
        let found: number[];
        if (input.length > 1) {
          const thing = input.slice(0, -1);
          found = lookups.filter((l) => l !== d && thing.every((t) => this.documents[l].nameTerms.includes(t)));
        } else {
          // A bare `id` is the id of what the tool's name names (`Get Artist`): a search that mentions it.
          const described = (l: number) => new Set([...this.documents[l].nameTerms, ...this.documents[l].fields[DESCRIPTION]]);
          found = lookups.filter((l) => l !== d && doc.nameTerms.some((t) => t.length > 3 && described(l).has(t)));
        }
        if (found.length <= this.settings.chainFanout) for (const l of found) out.add(l);
      }
      return Int32Array.from(out);
    });
  }

  /** Built on the first query with a word the catalog lacks. */
  private get fuzzy(): FuzzyIndex {
    return (this.fuzzyIndex ??= new FuzzyIndex(this.words));
  }

  /** Weighted terms of a query: its own, glossary expansions, and typo corrections of unknown English words. */
  queryTerms(query: string): Map<string, number> {
    const terms = analyzeQuery(query, this.settings.expansion);
    const words = latinWords(query);

    if (this.settings.abbreviation > 0 && this.abbreviations.size > 0) {
      for (const word of words) {
        if (word.length < 5) continue;
        for (let len = 3; len <= 4 && len <= word.length - 2; len++) {
          const prefix = word.slice(0, len);
          if (this.abbreviations.has(prefix) && (terms.get(prefix) ?? 0) < this.settings.abbreviation) terms.set(prefix, this.settings.abbreviation);
        }
      }
    }
    if (this.settings.fuzzy > 0) {
      const add = (term: string, w: number) => {
        if (w > (terms.get(term) ?? 0)) terms.set(term, w);
      };
      for (const word of words) {
        if (this.words.has(word) || this.termIds.has(stem(word))) continue;
        // A compound the catalog spells in two humps ("wifi" for WiFi, "youtube" for YouTube).
        const split = this.compoundSplit(word);
        if (split) {
          for (const part of split) add(stem(part), this.settings.fuzzy);
          add(`${stem(split[0])}~${stem(split[1])}`, this.settings.fuzzy);
          continue;
        }
        let correction = this.corrections.get(word);
        if (!correction) {
          correction = this.fuzzy.nearest(word);
          if (this.corrections.size >= 50_000) this.corrections.clear();
          this.corrections.set(word, correction);
        }
        const { terms: near, distance } = correction;
        for (const candidate of near) add(stem(candidate), this.settings.fuzzy * (distance === 1 ? 1 : 0.7));
      }
    }
    return terms;
  }

  /** Two catalog words that make up `word`, longest first half first; null when none do. */
  private compoundSplit(word: string): [string, string] | null {
    for (let i = word.length - 2; i >= 2; i--) {
      const head = word.slice(0, i);
      const tail = word.slice(i);
      if (this.words.has(head) && this.words.has(tail)) return [head, tail];
    }
    return null;
  }

  /** Documents ranked for a query, best first; documents sharing nothing with it are left out. */
  search(query: string, limit: number, accept?: (index: number) => boolean): RankedDocument[] {
    const terms = this.queryTerms(query);
    const { prf } = this.settings;
    const lookup = this.settings.lookup > 0 && this.namesSomethingUnknown(query);
    const exact = this.exactWeights(query);
    const intents = this.settings.method > 0 ? requestIntents(query) : undefined;
    const scores = this.accumulate(terms);
    if (prf.weight <= 0 || prf.docs <= 0) return this.rank(scores, terms, limit, accept, lookup, exact, intents);
    const first = this.rank(scores, terms, Math.max(limit, prf.docs), accept, lookup, exact, intents);
    const added = this.feedback(first.slice(0, prf.docs));
    if (added.size === 0) return first.slice(0, limit);
    // BM25 is linear in the query's weights: the second pass is the first's scores, scaled, plus
    // the feedback terms (rare ones, short postings) — not the whole query walked again.
    for (let d = 0; d < scores.length; d++) scores[d] *= 1 - prf.weight;
    this.accumulate(added, scores);
    const combined = new Map<string, number>();
    for (const [t, w] of terms) combined.set(t, (1 - prf.weight) * w);
    for (const [t, w] of added) combined.set(t, (combined.get(t) ?? 0) + w);
    return this.rank(scores, combined, limit, accept, lookup, exact, intents);
  }

  /**
   * Whether the request names something no tool mentions: a word written with a capital inside a
   * sentence, or quoted, that is neither a catalog word nor a catalog term ("Titanic", 'My Rock').
   */
  private namesSomethingUnknown(query: string): boolean {
    const named = new Set<string>();
    // A quoted title or name ('My Rock', "One Punch Man"), not a quoted value: an id, a token, a URL or an address has digits or symbols.
    for (const [, inner] of query.matchAll(/["'“‘]([^"'”’]{2,80})["'”’]/g)) {
      if (NAME_LIKE.test(inner)) for (const w of inner.toLowerCase().match(/[a-z]+/g) ?? []) named.add(w);
    }
    // A capital inside a sentence, but not an acronym (`PNG`, `USD`): those name formats and units.
    for (const [, before, word] of query.matchAll(/(^|[.!?]\s+|\s)([A-Z][A-Za-z-]*)/g)) {
      if (before !== "" && !/[.!?]/.test(before) && !ACRONYM.test(word)) named.add(word.toLowerCase());
    }
    for (const word of named) {
      if (word.length < 2 || isEnglishStopWord(word)) continue;
      if (!this.words.has(word) && !this.termIds.has(stem(word))) return true;
    }
    return false;
  }

  /**
   * The request's words each field of document `index` contains, for showing why it ranked
   * (the feedback stage's terms are not listed: they are the ranking's own, not the request's).
   */
  explain(query: string, index: number, neededBy?: string): MatchExplanation {
    // One search explains up to `limit` results of the same query: analyse it once.
    if (this.explained?.query !== query) this.explained = { query, terms: this.queryTerms(query), own: ownWords(query) };
    const { terms, own } = this.explained;
    const fields: MatchExplanation["fields"] = {};
    const expanded = new Set<string>();
    searchFields.forEach((field, f) => {
      const found = new Set<string>();
      for (const term of new Set(this.documents[index].fields[f])) {
        // Single Chinese characters are the index's safety net, not a reason a person would read.
        if (!terms.has(term) || (term.length === 1 && containsChinese(term))) continue;
        const word = own.get(term);
        if (word === null) continue;
        if (word !== undefined) found.add(word);
        else {
          const shown = this.catalogWord(term);
          found.add(shown);
          expanded.add(shown);
        }
      }
      if (found.size > 0) fields[field] = [...found];
    });
    return { fields, expanded: [...expanded], ...(neededBy !== undefined && { needed_by: neededBy }) };
  }

  /** A term's idf in this catalog, 0 for a term no tool has. */
  private idf(term: string): number {
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.idfs[id];
  }

  /** A catalog word for an index term (the shortest word that stems to it), the term itself when there is none. */
  private catalogWord(term: string): string {
    if (!this.wordsByStem) {
      this.wordsByStem = new Map();
      for (const word of this.words) {
        const s = stem(word);
        const known = this.wordsByStem.get(s);
        if (known === undefined || word.length < known.length || (word.length === known.length && word < known)) this.wordsByStem.set(s, word);
      }
    }
    return this.wordsByStem.get(term) ?? term;
  }

  /** RM3: the terms of a relevance model of the first-pass best tools, at their share of `prf.weight` (the query keeps the rest). */
  private feedback(top: readonly RankedDocument[]): Map<string, number> {
    const { prf } = this.settings;
    const out = new Map<string, number>();
    const total = top.reduce((sum, r) => sum + r.score, 0);
    if (total <= 0) return out;
    const model = new Map<string, number>();
    for (const r of top) {
      const tokens = this.documents[r.index].fields.flat();
      if (tokens.length === 0) continue;
      const share = r.score / total / tokens.length;
      for (const t of tokens) if (this.termIds.has(t)) model.set(t, (model.get(t) ?? 0) + share);
    }
    // Informative terms only: a word every tool has says nothing about this one.
    const ranked = [...model].map(([t, p]) => [t, p * this.idf(t)] as const).sort((a, b) => b[1] - a[1]).slice(0, prf.terms);
    const max = ranked[0]?.[1] ?? 0;
    if (max <= 0) return out;
    for (const [t, p] of ranked) out.set(t, (prf.weight * p) / max);
    return out;
  }

  /** BM25F scores of every document for weighted terms, added into `scores`. */
  private accumulate(terms: Map<string, number>, scores: Float64Array = new Float64Array(this.size)): Float64Array {
    const { k1 } = this.settings;
    for (const [term, qw] of terms) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const weight = qw * this.idfs[id] * (k1 + 1);
      const { postingDocs: docs, postingTfs: tfs } = this;
      for (let i = this.offsets[id], end = this.offsets[id + 1]; i < end; i++) {
        const tf = tfs[i];
        scores[docs[i]] += (weight * tf) / (tf + k1);
      }
    }
    return scores;
  }

  /**
   * BM25F over the exact word forms of document `d` for the request's own (`exact` weight each):
   * computed from the candidate's tokens, so exact forms add no postings to the index.
   */
  private exactScore(d: number, exact: ReadonlyMap<string, number>): number {
    const { k1 } = this.settings;
    const tfs = new Map<string, number>();
    this.documents[d].exact.forEach((tokens, f) => {
      const w = this.fieldNorms[d * searchFields.length + f];
      for (const t of tokens) if (exact.has(t)) tfs.set(t, (tfs.get(t) ?? 0) + w);
    });
    let score = 0;
    for (const [t, tf] of tfs) score += (exact.get(t)! * (k1 + 1) * tf) / (tf + k1);
    return score;
  }

  /** The request's exact word forms that the catalog has, each with its weight × idf (see `exact`). */
  private exactWeights(query: string): Map<string, number> {
    const out = new Map<string, number>();
    if (this.settings.exact <= 0) return out;
    for (const t of exactTerms(query)) {
      const df = this.exactDf.get(t);
      if (df !== undefined) out.set(t, this.settings.exact * Math.log(1 + (this.size - df + 0.5) / (df + 0.5)));
    }
    return out;
  }

  /** The best candidates of first-pass scores, re-ranked (coverage, lookups, methods, reliability, chains). */
  private rank(
    scores: Float64Array,
    terms: Map<string, number>,
    limit: number,
    accept?: (index: number) => boolean,
    lookup = false,
    exact: ReadonlyMap<string, number> = new Map(),
    intents?: ReadonlySet<Intent>,
  ): RankedDocument[] {
    const candidates = this.top(scores, Math.max(limit, this.settings.rerankDepth), accept);
    if (exact.size > 0) for (const c of candidates) c.score += this.exactScore(c.index, exact);
    const { coverage, coverageOwnParts, reliability } = this.settings;
    const allWeights = coverage.name + coverage.description + coverage.params;
    for (const c of candidates) {
      const part = this.parts[c.index];
      const own = (part.name.total > 0 ? coverage.name : 0) + (part.description.total > 0 ? coverage.description : 0) + (part.params.total > 0 ? coverage.params : 0);
      const spread = own > 0 ? 1 + coverageOwnParts * (allWeights / own - 1) : 1;
      c.score *=
        1 +
        spread *
          (coverage.name * this.coverage(part.name, terms) +
            coverage.description * this.coverage(part.description, terms) +
            coverage.params * this.coverage(part.params, terms));
      if (lookup && this.documents[c.index].lookup) c.score *= 1 + this.settings.lookup;
      const rate = this.documents[c.index].successRate;
      if (rate !== null) c.score *= 1 + reliability * (2 * Math.min(1, Math.max(0, rate)) - 1);
    }
    candidates.sort((a, b) => b.score - a.score || a.index - b.index);
    if (intents && intents.size > 0) this.orderOperations(candidates, intents);
    if (this.settings.chain > 0) this.addProducers(candidates, accept, this.producers);
    if (lookup && this.settings.lookupIds > 0) this.addProducers(candidates, accept, this.searchers, this.settings.lookupIds);
    return candidates.slice(0, limit);
  }

  /**
   * Within each resource among the candidates, the operations that do what the request asks take
   * the resource's best scores (in their own order), the others the rest (in theirs): the text
   * finds the resource, the verb picks its operation. Sorted again in place.
   */
  private orderOperations(candidates: RankedDocument[], intents: ReadonlySet<Intent>) {
    const byResource = new Map<string, RankedDocument[]>();
    for (const c of candidates) {
      const op = this.documents[c.index].operation;
      if (op) push(byResource, op.resource, c);
    }
    let moved = false;
    for (const group of byResource.values()) {
      if (group.length < 2) continue;
      const wanted = (c: RankedDocument) => [...intents].some((intent) => serves(this.documents[c.index].operation!, intent));
      const first = group.filter(wanted);
      if (first.length === 0 || first.length === group.length) continue;
      // `group` is in score order (candidates are sorted), so each part keeps its own order.
      const scores = group.map((c) => c.score);
      let previous = Infinity;
      for (const [i, c] of [...first, ...group.filter((c) => !wanted(c))].entries()) {
        // Operations the text scores alike tie: the one asked for goes first all the same.
        c.score = Math.min(scores[i], previous * (1 - 1e-9));
        previous = c.score;
      }
      moved = true;
    }
    if (moved) candidates.sort((a, b) => b.score - a.score || a.index - b.index);
  }

  /** Lifts the producers of the best candidates' inputs to `chain` × the candidate's score (in place, re-sorted). */
  private addProducers(candidates: RankedDocument[], accept: ((index: number) => boolean) | undefined, links: Int32Array[], share = this.settings.chain) {
    const at = new Map(candidates.map((c) => [c.index, c]));
    for (const consumer of candidates.slice(0, this.settings.chainDepth)) {
      for (const p of links[consumer.index]) {
        if (accept && !accept(p)) continue;
        const lifted = share * consumer.score;
        const existing = at.get(p);
        if (existing) {
          if (lifted > existing.score) Object.assign(existing, { score: lifted, neededBy: consumer.id });
        } else {
          const c = { index: p, id: this.documents[p].id, score: lifted, neededBy: consumer.id };
          at.set(p, c);
          candidates.push(c);
        }
      }
    }
    candidates.sort((a, b) => b.score - a.score || a.index - b.index);
  }

  /** Idf-weighted share of a tool's terms that the query holds (expansions count at their weight). */
  private coverage(part: Part, query: Map<string, number>): number {
    if (part.total === 0) return 0;
    let hit = 0;
    for (let i = 0; i < part.terms.length; i++) {
      const w = query.get(part.terms[i]);
      if (w !== undefined) hit += part.idfs[i] * Math.min(1, w);
    }
    return hit / (part.total + this.settings.coveragePrior);
  }

  /** The `limit` best positive scores (a bounded min-heap: long queries touch most of the catalog). */
  private top(scores: Float64Array, limit: number, accept?: (index: number) => boolean): RankedDocument[] {
    const heap: number[] = [];
    const worse = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
    const siftDown = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(heap[l], heap[m])) m = l;
        if (r < heap.length && worse(heap[r], heap[m])) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    };
    for (let d = 0; d < scores.length; d++) {
      if (scores[d] <= 0 || (accept && !accept(d))) continue;
      if (heap.length < limit) {
        heap.push(d);
        for (let i = heap.length - 1; i > 0; ) {
          const parent = (i - 1) >> 1;
          if (!worse(heap[i], heap[parent])) break;
          [heap[i], heap[parent]] = [heap[parent], heap[i]];
          i = parent;
        }
      } else if (limit > 0 && worse(heap[0], d)) {
        heap[0] = d;
        siftDown(0);
      }
    }
    return heap
      .map((d) => ({ index: d, id: this.documents[d].id, score: scores[d] }))
      .sort((a, b) => b.score - a.score || a.index - b.index);
  }
}
