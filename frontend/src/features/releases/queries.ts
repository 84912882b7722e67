import { graphql } from "../../gql";

export const ReleaseViewFragment = graphql(`
  fragment ReleaseView on Release {
    id
    state
    onFailure
    requester
    createdAt
    finishedAt
    error
    canCancel
    deploys {
      name
      deploymentId
      application
      environment
      failedStep
      state
      error
      after
      rollbackState
      rollbackDeploymentId
      rollbackError
      deployment {
        id
        application
        environment
        updatedAt
        artifact {
          version
        }
        currentStep
        exports {
          name
          format
          value
        }
        imports {
          name
          deploymentId
          exports
        }
      }
    }
    edges {
      from
      to
    }
  }
`);

export const ReleasesPageQuery = graphql(`
  query ReleasesPage($first: Int!) {
    releases(first: $first) {
      nodes {
        id
        state
        onFailure
        requester
        createdAt
        finishedAt
        error
        deploys {
          name
          state
        }
      }
    }
  }
`);

export const ReleasePageQuery = graphql(`
  query ReleasePage($id: ID!) {
    release(id: $id) {
      ...ReleaseView
    }
  }
`);

export const ReleaseLiveSubscription = graphql(`
  subscription ReleaseLive($id: ID!) {
    releaseEvents(id: $id) {
      ...ReleaseView
    }
  }
`);
