import { graphql } from "../../gql";

export const WallDeploymentFragment = graphql(`
  fragment WallDeployment on Deployment {
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
      error
    }
    rollout {
      state
      currentWave
      targetsTotal
      targetsDone
      waves {
        name
        state
        deferredUntil
        bake {
          until
        }
        batches {
          state
        }
      }
      pause {
        until
      }
    }
  }
`);

export const WallQuery = graphql(`
  query Wall($failedStates: [DeploymentState!], $since: Time) {
    activity(first: 200) {
      ...WallDeployment
    }
    failed: deployments(filter: { states: $failedStates, createdAfter: $since }, first: 30) {
      nodes {
        ...WallDeployment
      }
    }
    inService: inventory {
      tenant
      application
      environment
      deployedAt
    }
  }
`);

export const WallFeedSubscription = graphql(`
  subscription WallFeed {
    activity {
      kind
      deployment {
        ...WallDeployment
      }
    }
  }
`);

export const WallDoraQuery = graphql(`
  query WallDora($current: DoraFilter, $previous: DoraFilter) {
    current: doraMetrics(filter: $current) {
      range {
        ...DoraPageFigures
      }
    }
    previous: doraMetrics(filter: $previous) {
      range {
        ...DoraPageFigures
      }
    }
  }
`);
