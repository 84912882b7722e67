import { graphql } from "../../gql";

export const DeploymentsPageQuery = graphql(`
  query DeploymentsPage($filter: DeploymentFilter, $first: Int, $after: String) {
    deployments(filter: $filter, first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          tenant
          application
          environment
          state
          requester
          createdAt
          startedAt
          finishedAt
          dryRun
          artifact {
            name
            version
          }
          currentStep
          error
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const DeploymentsSuggestionsQuery = graphql(`
  query DeploymentsSuggestions {
    inventory {
      tenant
      application
      environment
    }
  }
`);
