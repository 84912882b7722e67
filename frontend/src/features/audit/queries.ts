import { graphql } from "../../gql";

export const AuditPageQuery = graphql(`
  query AuditPage($filter: AuditFilter, $first: Int!, $after: String) {
    auditEntries(filter: $filter, first: $first, after: $after) {
      nodes {
        id
        time
        actor
        action
        target
        details
        resources {
          tenant
          application
          environment
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);
