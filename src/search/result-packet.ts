/**
 * The search answer (`/s/search.json`), field names as the original's result packet so that
 * existing front ends work. Shared by the search service (which builds it) and the client
 * library (which returns it): one definition.
 */
export interface SearchResult {
  rank: number;
  score: number;
  title: string;
  liveUrl: string;
  displayUrl: string;
  clickTrackingUrl: string;
  summary: string;
  listMetadata: Record<string, string[]>;
  collection: string;
  gscopesSet: string[];
  fileSize: number;
  fileType: string;
  date: string | null;
}

export interface FacetView {
  name: string;
  className: string;
  values: { label: string; count: number; selected: boolean }[];
}

export interface SearchResponse {
  question: {
    query: string;
    collection: string;
    startRank: number;
    numRanks: number;
    fmo: boolean;
    gscope1: string | null;
    searchedFor: string;
  };
  response: {
    resultPacket: {
      query: string;
      resultsSummary: {
        totalMatching: number;
        totalMatchingExact: boolean;
        fullyMatching: number;
        partiallyMatching: number;
        currStart: number;
        currEnd: number;
        numRanks: number;
        nextStart: number | null;
        prevStart: number | null;
      };
      results: SearchResult[];
      spell: { text: string } | null;
    };
    facets: FacetView[];
  };
}
