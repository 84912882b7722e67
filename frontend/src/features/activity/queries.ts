import { graphql } from "../../gql";

export const ActivityDeploymentFragment = graphql(`
  fragment ActivityDeployment on Deployment {
    id
    tenant
    application
    environment
    state
    requester
    createdAt
    startedAt
    finishedAt
    updatedAt
    startAt
    dryRun
    artifact {
      name
      version
    }
    currentStep
    error
    plan {
      steps {
        name
        maxRetries
      }
    }
    steps {
      name
      state
      kind
      position
      attempts
    }
  }
`);

export const ActivityPageQuery = graphql(`
  query ActivityPage {
    activity(first: 200) {
      ...ActivityDeployment
    }
    recent: deployments(first: 25) {
      nodes {
        ...ActivityDeployment
      }
    }
  }
`);

export const ActivityFeedSubscription = graphql(`
  subscription ActivityFeed {
    activity {
      kind
      deployment {
        ...ActivityDeployment
      }
    }
  }
`);
